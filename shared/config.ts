/**
 * The one place that reads process.env. Every other module receives a `Config`.
 *
 * A bad or missing setting stops the process at start with one line naming the
 * variable (see `loadConfig`), never a stack trace deep inside a connection.
 */
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
/** Unset and blank both mean "not configured". Only the given schemes are accepted. */
const optionalUrl = (protocol: RegExp, schemes: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.url({ protocol, error: `must be a ${schemes} URL` }).optional(),
  );

/** Comma-separated list, blanks removed. */
const csvList = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  /** Unset: the local stack starts a private clickhouse-server (see shared/local-stack). */
  CLICKHOUSE_URL: optionalUrl(/^https?$/, 'http:// or https://'),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier (letters, digits, _)')
    .default('soulgraph'),

  /** Unset: the local stack starts a private redis-server. */
  REDIS_URL: optionalUrl(/^rediss?$/, 'redis:// or rediss://'),
  /** BullMQ key prefix; lets several deployments (or test files) share one Redis. */
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]+$/).default('soulgraph'),

  /** Folder for the local stack's data, logs and state file. */
  DATA_DIR: z.string().default('.data'),

  API_PORT: port.default(8080),
  /** `iss` and `aud` of the unified tokens the API issues. */
  API_JWT_ISSUER: z.string().min(1).default('soulgraph'),
  API_JWT_AUDIENCE: z.string().min(1).default('soulgraph-api'),
  /**
   * ES256 private keys as a JSON array of JWKs, each with a `kid`: the first signs, all
   * verify (rotate by prepending a new key). Unset outside production: a key is generated
   * per process, so tokens do not survive a restart.
   */
  API_SIGNING_KEYS: z.string().default(''),
  /** HMAC secret of recommendation cursors (32+ characters); unset outside production: per process. */
  CURSOR_SECRET: z
    .string()
    .default('')
    .refine((v) => v === '' || v.length >= 32, 'must be at least 32 characters'),
  UNIFIED_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(7 * 24 * 3600),
  ADDRESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(600),
  SIWE_NONCE_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /**
   * Address tokens accepted from external issuers: a JSON array of
   * {"issuer", "jwksUrl", "audience", "addressClaim"}.
   */
  ADDRESS_TOKEN_ISSUERS: z.string().default('[]'),
  /** How long the API trusts its in-memory copy of the API keys: a revoked key stops working within this. */
  APIKEY_CACHE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** How long the API keeps the id of the newest ready snapshot before asking again (0 = every request). */
  SNAPSHOT_CACHE_SECONDS: z.coerce.number().min(0).max(300).default(5),
  /** Requests per minute per API key and endpoint, unless the key has its own limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),

  /** Rows per ingest job: one ClickHouse INSERT per job. */
  INGEST_CHUNK_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  INGEST_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  INGEST_JOB_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** A job whose worker stops renewing its lock this long is handed to another worker. */
  INGEST_LOCK_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),

  /** Chain display names for reasons ("Counterparty on Ethereum"): "1=Ethereum,137=Polygon". */
  CHAIN_NAMES: z
    .string()
    .default('1=Ethereum,10=Optimism,56=BNB Chain,137=Polygon,8453=Base,42161=Arbitrum One,31337=Hardhat')
    .transform((v, ctx) => parseChainNames(v, ctx)),
  SOCIAL_NETWORK_NAME: z.string().min(1).default('Twitter'),

  /** Size of the demo world `npm start` ingests into an empty database (0 = none). */
  DEMO_PROFILES: z.coerce.number().int().min(0).max(1_000_000).default(2_000),
  DEMO_SEED: z.coerce.number().int().min(0).default(42),

  /** Cron pattern (UTC) for weekly compaction of the raw tables. */
  COMPACT_CRON: z.string().default('0 4 * * 0'),

  /** Comma-separated list of Ethereum JSON-RPC URLs used by on-chain ingestion. */
  CHAIN_RPC_URLS: csvList,
});

export type Config = z.infer<typeof configSchema>;

function parseChainNames(value: string, ctx: z.RefinementCtx): Map<number, string> {
  const names = new Map<number, string>();
  for (const pair of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^(\d+)\s*=\s*(.+)$/.exec(pair);
    if (!match) {
      ctx.addIssue({ code: 'custom', message: `"${pair}" is not <chainId>=<name>` });
      return names;
    }
    names.set(Number(match[1]), match[2]!.trim());
  }
  return names;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const variable = String(issue.path[0] ?? 'environment');
  const shown =
    env[variable] === undefined
      ? 'unset'
      : SECRET_NAME.test(variable)
        ? 'value hidden'
        : JSON.stringify(withoutCredentials(env[variable]));
  throw new ConfigError(`Invalid setting ${variable} (${shown}): ${issue.message}`);
}

/** Settings whose values never appear in an error message. */
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|KEY/;

/** The user:password@ part of a URL (redis://:pw@host) is never shown either. */
function withoutCredentials(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[\s\S]*@/, '$1***@');
}

/** For process entry points: the config, or exit(1) after one clear line on stderr. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  try {
    return parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`soulgraph: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export function chainName(config: Config, chainId: number): string {
  return config.CHAIN_NAMES.get(chainId) ?? `chain ${chainId}`;
}
