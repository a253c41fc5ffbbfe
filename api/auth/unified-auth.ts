/** `Authorization: Bearer <unified token>`: the caller's profile. Sets res.locals.caller. */
import type { RequestHandler } from 'express';
import type { Config } from '../../shared/config.ts';
import { ApiError } from '../common/envelope.ts';
import { ExpiringMemo } from '../common/expiring-memo.ts';
import type { SigningKeys } from './signing-keys.ts';
import { verifyUnifiedToken } from './unified-token.ts';
import { tokenApiError } from '../common/token-errors.ts';

export interface Caller {
  profileId: string;
  address: string;
}

/** The token of a `Bearer <token>` header, or 10103 naming the header it should be in. */
export function bearerToken(header: string | undefined, name = 'Authorization'): string {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match) throw new ApiError('tokenMissing', `token missing: send ${name}: Bearer <token>`);
  return match[1]!;
}

/**
 * Verified tokens are remembered for about a minute (never past their exp): an ES256 check
 * costs ~0.2 ms of CPU, more than the rest of a served recommend page. The key is the whole
 * token, signature included, so an altered token is never a hit; 75 s at most bounds how
 * long a token signed by a key taken out of API_SIGNING_KEYS keeps working in a running
 * process. Concurrent requests carrying the same new token (an app opening several views at
 * sign-in) share one verification rather than each starting its own.
 *
 * Each entry is kept for a random 45–75 s rather than exactly 60: tokens first seen together
 * (every active client after a restart or deploy) would otherwise leave together and be
 * verified again together, a minute later and every minute after, as one burst of ES256
 * checks on the thread pool that stalled every request behind it (bench:api saw 100 ms;
 * docs/benchmarks.md's git history). Spread over 30 s, the same checks are a trickle.
 */
const VERIFIED_TOKEN_SECONDS = { min: 45, max: 75 };
const VERIFIED_TOKENS_KEPT = 50_000;

export function requireUnifiedToken(
  keys: SigningKeys,
  config: Config,
  now: () => number = Date.now,
  random: () => number = Math.random,
): RequestHandler {
  // Entries expire with the token or after 45-75 s, whichever comes first.
  const verified = new ExpiringMemo<Caller>(VERIFIED_TOKENS_KEPT, now);
  const keptForMs = () => (VERIFIED_TOKEN_SECONDS.min + random() * (VERIFIED_TOKEN_SECONDS.max - VERIFIED_TOKEN_SECONDS.min)) * 1000;
  // At most one entry per request in flight: each leaves when its verification settles.
  const verifying = new Map<string, Promise<Caller>>();

  async function verify(token: string): Promise<Caller> {
    let subject;
    try {
      subject = await verifyUnifiedToken(keys, config, token, new Date(now()));
    } catch (error) {
      throw tokenApiError(error);
    }
    const caller: Caller = { profileId: subject.profileId, address: subject.address };
    verified.set(token, caller, Math.min(subject.expiresAt * 1000, now() + keptForMs()));
    return caller;
  }

  return async (req, res, next) => {
    const token = bearerToken(req.get('Authorization'));
    const known = verified.get(token);
    if (known) {
      res.locals.caller = known;
      return next();
    }
    let pending = verifying.get(token);
    if (!pending) {
      pending = verify(token).finally(() => verifying.delete(token));
      verifying.set(token, pending);
    }
    res.locals.caller = await pending;
    next();
  };
}
