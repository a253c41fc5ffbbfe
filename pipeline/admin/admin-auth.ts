/**
 * The admin credential in front of the queue dashboard: HTTP Basic with ADMIN_USER and
 * ADMIN_PASSWORD, compared in constant time. Without ADMIN_PASSWORD the dashboard is
 * closed, never open: every request answers 403 saying how to open it.
 */
import type { RequestHandler } from 'express';
import type { Config } from '../../shared/config.ts';
import { matchesSecret } from '../../shared/secret-match.ts';

export function requireAdmin(config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD'>): RequestHandler {
  if (config.ADMIN_PASSWORD === '') {
    return (_req, res) => {
      res.status(403).type('text/plain').send('The queue dashboard is closed: set ADMIN_PASSWORD (16+ characters) to open it.\n');
    };
  }
  return (req, res, next) => {
    const presented = basicCredentials(req.get('Authorization'));
    // Both compared, always: the time taken does not tell which one was wrong.
    const userMatches = matchesSecret(presented?.user, config.ADMIN_USER);
    const passwordMatches = matchesSecret(presented?.password, config.ADMIN_PASSWORD);
    if (userMatches && passwordMatches) {
      next();
      return;
    }
    res.set('WWW-Authenticate', 'Basic realm="soulgraph admin", charset="UTF-8"').status(401).type('text/plain').send('admin credential required\n');
  };
}

/**
 * Browsers send Basic credentials with every request, including ones a hostile page
 * triggers: a request that changes something (retry, clean, ...) must come from the
 * dashboard's own origin. Reads are harmless and pass.
 */
export const sameOriginChanges: RequestHandler = (req, res, next) => {
  const origin = req.get('Origin');
  if (req.method === 'GET' || req.method === 'HEAD' || origin === undefined || hostOf(origin) === req.get('Host')) {
    next();
    return;
  }
  res.status(403).type('text/plain').send('cross-origin request refused\n');
};

function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
