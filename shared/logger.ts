/**
 * Structured JSON logs (pino). Secrets never reach a log line: the paths below are
 * redacted wherever they appear in a logged object.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

const SECRET_SETTINGS = ['CLICKHOUSE_PASSWORD', 'API_SIGNING_KEYS', 'CURSOR_SECRET', 'ADMIN_PASSWORD', 'METRICS_TOKEN', 'CHAIN_RPC_URLS', 'CHAINS', 'REDIS_URL', 'SERVING_REDIS_URL'];

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
  // Signatures (SIWE), ApiKeys and credentials under their other usual names, and the
  // secret settings, should a config object ever be logged.
  'signature',
  'ApiKey',
  'privateKey',
  'cookie',
  '*.signature',
  '*.ApiKey',
  '*.privateKey',
  '*.cookie',
  'headers.apikey',
  'headers.authorization',
  'headers["i-authorization"]',
  'headers.cookie',
  'req.headers.cookie',
  ...SECRET_SETTINGS,
  ...SECRET_SETTINGS.map((name) => `*.${name}`),
];

/** `toStderr` keeps stdout for a command's own output (the CLI). */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name: string, options: { toStderr?: boolean; level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    { name, level: options.level ?? config.LOG_LEVEL, redact: { paths: REDACT, censor: '[redacted]' } },
    options.destination ?? pino.destination(options.toStderr ? 2 : 1),
  );
}
