/**
 * Structured JSON logs (pino). Secrets never reach a log line: the paths below are
 * redacted wherever they appear in a logged object.
 */
import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

const REDACT = [
  'apiKey',
  'token',
  'password',
  'secret',
  'sig',
  'authorization',
  '*.apiKey',
  '*.token',
  '*.password',
  '*.secret',
  '*.sig',
  '*.authorization',
  'req.headers.apikey',
  'req.headers.authorization',
  'req.headers["i-authorization"]',
];

/** `toStderr` keeps stdout for a command's own output (the CLI). */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name: string, options: { toStderr?: boolean; level?: string } = {}): Logger {
  return pino(
    { name, level: options.level ?? config.LOG_LEVEL, redact: { paths: REDACT, censor: '[redacted]' } },
    pino.destination(options.toStderr ? 2 : 1),
  );
}
