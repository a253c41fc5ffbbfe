/**
 * The one place that reads process.env. Every other module receives a `Config`.
 *
 * A bad or missing setting stops the process at start with one line naming the
 * variable (see `loadConfig`), never a stack trace deep inside a connection.
 */
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { cpusOf } from './cpu-affinity.ts';
import { parseCpuList } from './cpu-list.ts';

export { ConfigError };

const port = z.coerce.number().int().min(0).max(65535);
/** Unset and blank both mean "not configured". */
const blankAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** An optional URL; only the given schemes are accepted. */
const optionalUrl = (protocol: RegExp, schemes: string) => z.preprocess(blankAsUnset, z.url({ protocol, error: `must be a ${schemes} URL` }).optional());

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
  /**
   * Name of a ClickHouse cluster (its remote_servers entry) to run on: migrations create
   * Replicated tables on every node and Distributed tables over them (docs/cluster.md).
   * Blank: one server, as before.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .default('')
    .refine((v) => v === '' || /^[A-Za-z_][A-Za-z0-9_]*$/.test(v), 'must be a plain identifier (letters, digits, _)'),

  /**
   * On a cluster: every node's HTTP address (comma-separated), for what must reach each node
   * or each shard's leader (replication waits, compaction, a retried bucket's partition drop,
   * migrations' ALTERs of local tables). Unset: those go through CLICKHOUSE_URL's node.
   */
  CLICKHOUSE_NODE_URLS: csvList.pipe(z.array(z.url({ protocol: /^https?$/, error: 'must be http:// or https:// URLs, comma-separated' }))),

  /** Unset: the local stack starts a private redis-server. */
  REDIS_URL: optionalUrl(/^rediss?$/, 'redis:// or rediss://'),
  /**
   * The Redis the API answers from: the serving copy (lists and mirrors), rate-limit
   * counters, sign-in nonces and claims, the tag cache. All of it is rebuilt from ClickHouse
   * or short-lived, so snapshots are persistence enough; kept apart from the queues' Redis
   * and its append-only file, the API never waits behind that file's writes while an
   * ingest runs (bench:reads-under-ingest). Unset: the Redis Cluster of REDIS_CLUSTER_NODES,
   * else REDIS_URL, serves both; the local stack starts a second redis-server for it
   * (snapshots, no AOF) beside one it starts for the queues.
   */
  SERVING_REDIS_URL: optionalUrl(/^rediss?$/, 'redis:// or rediss://'),
  /**
   * A Redis Cluster's nodes as host:port, comma-separated (a few are enough: the rest are
   * discovered). Set: the queues and workers use an ioredis Cluster client, and the serving
   * copy (the API and its writer) lives on the cluster too unless SERVING_REDIS_URL is set
   * (docs/cluster.md).
   */
  REDIS_CLUSTER_NODES: csvList.transform((nodes, ctx) => parseClusterNodes(nodes, ctx)),
  /**
   * BullMQ key prefix; lets several deployments (or test files) share one Redis. With
   * REDIS_CLUSTER_NODES it is hash-tagged ({soulgraph}) unless it already has a {tag}: every
   * BullMQ script and flow must find its keys in one slot.
   */
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_:{}-]+$/).default('soulgraph'),

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
  /**
   * How long an API query waits for ClickHouse, the wait for a connection included (its reads
   * are lookups by key, answered in milliseconds): past it the caller gets 503 / 10503 instead
   * of a request held as long as ClickHouse stalls.
   */
  API_CLICKHOUSE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(3_000),

  /**
   * The nice value (0-19) that `soulgraph workers` and `soulgraph ingest` run at: on a
   * machine that also serves the API, ingestion gets the CPU the API leaves and is as fast
   * as before elsewhere (bench:reads-under-ingest). 0 leaves the priority as started.
   */
  WORKERS_NICE: z.coerce.number().int().min(0).max(19).default(19),
  /**
   * On a host that also serves the API: the CPUs ingestion is confined to, as a Linux CPU
   * list (`1`, `2-3`). `soulgraph workers`, `soulgraph ingest` and the local stack's
   * ClickHouse and queue Redis run only on these, the API and the serving Redis only on the
   * others, so an ingest does not slow reads (bench:reads-under-ingest). Unset: no split.
   */
  INGEST_CPUS: z.preprocess(
    blankAsUnset,
    z
      .string()
      .transform((v, ctx) => parseCpuList(v.trim()) ?? (ctx.addIssue({ code: 'custom', message: 'must be a CPU list such as 1, 2-3 or 0,2-3' }), z.NEVER))
      .optional(),
  ),
  /** Rows per ingest job: one ClickHouse INSERT per job. */
  INGEST_CHUNK_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
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

  /** Comma-separated Ethereum JSON-RPC URLs for checking smart-wallet signatures (SIWE, tags). */
  CHAIN_RPC_URLS: csvList,

  // On-chain ingestion (pipeline/chain, docs/chains.md).
  /**
   * The chain sources, as a JSON array: one object per chain with `id`, optional `name`
   * (default: CHAIN_NAMES), `rpcUrls` (one or more, tried in order), `confirmations` (blocks
   * below the head that follow mode waits for) and `blocksPerJob`. Blank: no chain is ingested.
   */
  CHAINS: z
    .string()
    .default('')
    .transform((v, ctx) => parseChains(v, ctx)),
  /** Cron pattern (UTC, seconds allowed) of the follow job of each configured chain. */
  CHAIN_FOLLOW_CRON: z.string().default('*/15 * * * * *'),
  /** Block-range jobs each worker process runs at once. */
  CHAIN_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Blocks fetched in parallel within one range job. */
  CHAIN_BLOCK_FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(10),
  /** Attempts per range job (retries back off exponentially from 2 s). */
  CHAIN_JOB_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  /** Timeout of one JSON-RPC request; retried with backoff, then the next URL. */
  CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Gateway that ipfs:// metadata URLs are fetched through (ipfs://<cid>/<path> becomes <gateway><cid>/<path>). */
  METADATA_IPFS_GATEWAY: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).default('https://ipfs.io/ipfs/'),
  /** Longest wait for one metadata document, redirects included. */
  METADATA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Largest metadata document read; a longer one is dropped. */
  METADATA_MAX_BYTES: z.coerce.number().int().min(1_024).max(10_000_000).default(262_144),
  /** Redirects followed (each target checked again). */
  METADATA_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(3),
  /**
   * Private or loopback networks (CIDRs, comma-separated) that metadata URLs may reach after
   * all, e.g. 127.0.0.0/8 for tests and local development. Blank: none (production).
   */
  METADATA_ALLOW_PRIVATE_NETWORKS: csvList.pipe(
    z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'must be CIDRs such as 127.0.0.0/8 or ::1/128')),
  ),

  // Nightly materialization of recommendations and tags (pipeline/materialize).
  /** Cron pattern (UTC) of the nightly run. */
  MATERIALIZE_CRON: z.string().default('0 2 * * *'),
  /** Recommendations kept per profile. */
  REC_TOP_K: z.coerce.number().int().min(1).max(1_000).default(200),
  /** Profiles per bucket job: the unit of work that worker processes (and machines) share; each ranks its bucket on every thread it has. */
  REC_PROFILES_PER_BUCKET: z.coerce.number().int().min(1).default(50_000),
  /** Attempts of each bucket, tags and complete job before the run fails (the previous snapshot keeps serving). */
  MATERIALIZE_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Bucket jobs one worker process runs at a time (they share its rank threads; two write to ClickHouse side by side). */
  MATERIALIZE_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** max_memory_usage of each statement a run reads its inputs with, in bytes; GROUP BY and ORDER BY spill to disk past half of it. */
  MATERIALIZE_MAX_MEMORY_BYTES: z.coerce.number().int().min(100_000_000).default(4_000_000_000),
  /** Threads a worker process ranks lists on (pipeline/materialize/rank/rank-pool.ts); 0 = one per CPU. */
  RANK_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  /**
   * Paths of two hops (a profile's followees' and followers' follows and followers) each
   * profile gets at least; one with at most the run's cap in all gets every one of them, any
   * other the cap's worth, each hop passing on its most followed (docs/materialization.md).
   */
  REC_FOF_PATHS: z.coerce.number().int().min(0).default(1_000),
  /**
   * The paths of a whole run, water-filled among its profiles into the cap (at least
   * REC_FOF_PATHS each): a run's time grows with its paths in all, so a world of 10,000
   * profiles gets every path where 100,000 profiles get their share.
   */
  REC_FOF_PATHS_PER_RUN: z.coerce.number().int().min(0).default(200_000_000),
  /** Profiles whose newest follows each run holds out to fit the ranking model's weights (pipeline/materialize/fit/model-fit.ts). */
  REC_FIT_HELD_OUT: z.coerce.number().int().min(0).default(5_000),
  /** Native transfers below this many wei are dust and do not count as interactions. */
  REC_DUST_WEI: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of wei')
    .default('1000000000000000'),
  /** Addresses with more distinct counterparties than this are hubs (exchanges, bridges, ...) and ignored. */
  REC_HUB_COUNTERPARTIES: z.coerce.number().int().min(1).default(1_000),
  /** Addresses whose interactions count for nobody, comma-separated. */
  REC_DENY_ADDRESSES: csvList.pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x-addresses')).transform((a) => a.map((s) => s.toLowerCase()))),
  /** Interactions lose half their weight every this many days before the newest block time. */
  REC_COUNTERPARTY_HALF_LIFE_DAYS: z.coerce.number().positive().default(180),
  /** Collections held by more profiles than this say nothing about a pair, and are ignored. */
  REC_NFT_MAX_HOLDERS: z.coerce.number().int().min(2).default(2_000),
  /** Holders each collection recommends to the others (the most followed first): bounds the pairs of a large collection. */
  REC_NFT_CANDIDATES_PER_COLLECTION: z.coerce.number().int().min(1).default(100),
  /** Spam NFT collection contracts, comma-separated. */
  REC_NFT_SPAM_CONTRACTS: csvList.pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x-addresses')).transform((a) => a.map((s) => s.toLowerCase()))),
  /** How long a recommend request for a user the snapshot does not cover waits for the on-demand list before answering 10504. */
  COLD_START_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Recommendations per profile kept in Redis for the API; deeper pages are read from ClickHouse. */
  SERVING_DEPTH: z.coerce.number().int().min(1).max(1_000).default(100),
  /** Lifetime of a list in Redis; an expired one is re-read from ClickHouse on demand. */
  SERVING_LIST_TTL_SECONDS: z.coerce.number().int().min(60).default(3 * 24 * 3600),
  /**
   * The nightly re-sync of the profile and follow mirrors copies only rows ingested since the
   * last complete re-sync, less this margin (slow chunk jobs, clock skew between workers).
   */
  SERVING_MIRROR_SYNC_MARGIN_SECONDS: z.coerce.number().int().min(0).default(3600),
  /** Every this many days the re-sync copies every row anyway (0: every run). A flushed Redis always gets a full one. */
  SERVING_MIRROR_FULL_SYNC_DAYS: z.coerce.number().min(0).default(7),
  /** Ready snapshots kept (the serving one, and older ones for open cursors). */
  SNAPSHOT_KEEP_READY: z.coerce.number().int().min(1).default(2),
  /** No snapshot younger than this is dropped: a cursor stays valid at least this long after a swap. */
  SNAPSHOT_MIN_AGE_SECONDS: z.coerce.number().int().min(0).default(2 * 24 * 3600),
  /**
   * Encrypted user tags (docs/tags.md). The custody network's BLS12-381 public key (96 hex
   * characters): the local custodians' (`soulgraph custodian keygen`) or the Lit network's.
   * Blank: GET /api/v1/tag answers 503.
   */
  TAG_NETWORK_PUBLIC_KEY: z
    .string()
    .default('')
    .transform((v) => v.trim().replace(/^0x/, '').toLowerCase())
    .refine((v) => v === '' || /^[0-9a-f]{96}$/.test(v), 'must be 96 hex characters (a compressed BLS12-381 G1 point)'),
  /** Longest validity (expirationTime - issuedAt) of an "Access to User Tag." message. */
  TAG_MESSAGE_MAX_VALIDITY_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  /** How long a computed tag ciphertext stays in Redis (it is keyed by snapshot, so a new snapshot misses anyway). */
  TAG_CACHE_SECONDS: z.coerce.number().int().min(1).default(2 * 24 * 3600),
  /** How long the API remembers which profile an identifier belongs to, for the tag endpoint (a relinked address is seen within this). */
  TAG_LOOKUP_CACHE_SECONDS: z.coerce.number().min(0).max(3600).default(10),
  /** Worker threads computing tag ciphertexts (pairings) off the API's event loop. */
  TAG_ENCRYPTION_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** A custodian's port (`soulgraph start` gives node i the port CUSTODIAN_PORT + i - 1). */
  CUSTODIAN_PORT: port.default(7101),
  /** The share file a custodian serves (written by `soulgraph custodian keygen`). */
  CUSTODIAN_SHARE_FILE: z.string().default(''),
  /** Folder of the local custodians' key files for `soulgraph start` and keygen (blank: <DATA_DIR>/custodians). */
  CUSTODIAN_KEY_DIR: z.string().default(''),
  /** Port of the workers' HTTP server: /metrics, /healthz, /readyz (0 = any free port). */
  WORKERS_HTTP_PORT: port.default(9464),
  /** Port of the scheduler's admin server: the queue dashboard at /admin/queues, and /healthz. */
  ADMIN_PORT: port.default(8081),
  /** User name of the queue dashboard (HTTP Basic authentication). */
  ADMIN_USER: z.string().min(1).default('admin'),
  /** Password of the queue dashboard (16+ characters). Unset: the dashboard refuses every request. */
  ADMIN_PASSWORD: z
    .string()
    .default('')
    .refine((v) => v === '' || v.length >= 16, 'must be at least 16 characters'),
  /** Bearer token Prometheus sends to /metrics (API and workers). Unset: /metrics answers anyone who reaches the port. */
  METRICS_TOKEN: z.string().default(''),
  /** Seconds the API keeps serving after SIGTERM while /readyz answers 503, so a load balancer stops sending traffic first. */
  API_DRAIN_SECONDS: z.coerce.number().min(0).max(120).default(0),
});

export type Config = z.infer<typeof configSchema>;

const chainSettingsSchema = z
  .object({
    id: z.number().int().min(1).max(4_294_967_295),
    name: z.string().min(1).max(64).optional(),
    rpcUrls: z.array(z.url({ protocol: /^https?$/, error: 'rpcUrls must be http:// or https:// URLs' })).min(1),
    confirmations: z.number().int().min(0).max(10_000).default(12),
    blocksPerJob: z.number().int().min(1).max(10_000).default(100),
  })
  .strict();

/** One chain source (CHAINS). Without a `name`, the chain's CHAIN_NAMES entry names it (see chainSources in pipeline/chain). */
export type ChainSettings = z.infer<typeof chainSettingsSchema>;

function parseChains(value: string, ctx: z.RefinementCtx): ChainSettings[] {
  if (value.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {"id", "rpcUrls", "confirmations", "blocksPerJob"}' });
    return [];
  }
  const parsed = z.array(chainSettingsSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || 'value'}: ${issue.message}` });
    return [];
  }
  const ids = parsed.data.map((c) => c.id);
  if (new Set(ids).size !== ids.length) ctx.addIssue({ code: 'custom', message: 'a chain id appears twice' });
  return parsed.data;
}

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

function parseClusterNodes(nodes: string[], ctx: z.RefinementCtx): { host: string; port: number }[] {
  return nodes.flatMap((node) => {
    const match = /^([^:\s]+):(\d{1,5})$/.exec(node);
    if (!match || Number(match[2]) > 65535) {
      ctx.addIssue({ code: 'custom', message: `"${node}" is not host:port` });
      return [];
    }
    return [{ host: match[1]!, port: Number(match[2]) }];
  });
}

/**
 * Whether the serving copy lives on the Redis Cluster: REDIS_CLUSTER_NODES is set and
 * SERVING_REDIS_URL names no server of its own (shared/redis.ts, servingRedisConnection).
 */
export function servingCopyOnCluster(config: Pick<Config, 'SERVING_REDIS_URL'> & Partial<Pick<Config, 'REDIS_CLUSTER_NODES'>>): boolean {
  return !config.SERVING_REDIS_URL && (config.REDIS_CLUSTER_NODES?.length ?? 0) > 0;
}

/** The queue prefix as a Redis Cluster needs it: one hash tag, so a queue's keys share a slot. */
function hashTagged(prefix: string): string {
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}

/**
 * Settings that were replaced, with what replaced them: one still set would otherwise be
 * ignored without a word, so it is refused, naming its successor.
 */
const REPLACED_SETTINGS: Record<string, string> = {
  REC_FOF_EXACT_PATHS: 'REC_FOF_PATHS (the friend-of-friend paths each profile gets, every one when it has that few)',
};

/**
 * Settings of the SQL ranking that the in-memory engine replaced: they mean nothing now, so
 * one still set is refused rather than silently ignored.
 */
const RETIRED_SETTINGS: Record<string, string> = Object.fromEntries(
  [
    ['each run fits the weights of every signal to its own newest follows', ['REC_WEIGHT_SOCIAL', 'REC_WEIGHT_COUNTERPARTY', 'REC_WEIGHT_NFT', 'REC_WEIGHT_FOF', 'REC_FOLLOWS_YOU_BONUS', 'REC_FOLLOWS_YOU_SCALE', 'REC_FOLLOWS_YOU_MAX', 'REC_FIT_MIN_FOLLOWS', 'REC_FIT_PATHS', 'REC_FIT_PLACES', 'REC_PATH_RECENCY', 'REC_UNNAMED_PATHS']],
    ['every hop passes on its share of the cap (REC_FOF_PATHS, REC_FOF_PATHS_PER_RUN)', ['REC_FOF_VIA_FOLLOWEES', 'REC_FOF_VIA_FOLLOWERS', 'REC_FOF_PER_FOLLOWEE', 'REC_FOF_PASS_ON_DEPTH', 'REC_FOF_PER_FOLLOWER']],
    ['buckets are ranked in memory, not in ClickHouse (REC_PROFILES_PER_BUCKET)', ['REC_PAIRS_PER_BUCKET']],
  ].flatMap(([why, names]) => (names as string[]).map((name) => [name, why as string])),
);

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  for (const [old, successor] of Object.entries(REPLACED_SETTINGS)) {
    if (env[old] !== undefined) throw new ConfigError(`Setting ${old} was replaced by ${successor}: rename it`);
  }
  for (const [retired, why] of Object.entries(RETIRED_SETTINGS)) {
    if (env[retired] !== undefined) throw new ConfigError(`Setting ${retired} is no longer used (${why}): remove it`);
  }
  const result = configSchema.safeParse(env);
  if (result.success) {
    const config = result.data;
    if (config.CLICKHOUSE_NODE_URLS.length > 0 && !config.CLICKHOUSE_CLUSTER) {
      throw new ConfigError('Invalid setting CLICKHOUSE_NODE_URLS: the nodes of a cluster, so it needs CLICKHOUSE_CLUSTER');
    }
    // The local stack starts one plain server, which has no cluster to run ON CLUSTER statements on.
    if (config.CLICKHOUSE_CLUSTER && !config.CLICKHOUSE_URL) {
      throw new ConfigError(`Invalid setting CLICKHOUSE_CLUSTER (${JSON.stringify(config.CLICKHOUSE_CLUSTER)}): needs CLICKHOUSE_URL, the address of a node of that cluster`);
    }
    return config.REDIS_CLUSTER_NODES.length > 0 ? { ...config, QUEUE_PREFIX: hashTagged(config.QUEUE_PREFIX) } : config;
  }
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
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|KEY|^CHAINS$/;

/** The user:password@ part of a URL (redis://:pw@host) is never shown either. CHAINS is hidden whole: RPC URLs often embed an API key. */
function withoutCredentials(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[\s\S]*@/, '$1***@');
}

/** For process entry points: the config, or exit(1) after one clear line on stderr. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  try {
    const config = parseConfig(env);
    // A CPU split this machine cannot honour stops the process here, as any bad setting does
    // (cpusOf checks both sides, whichever it is asked for).
    cpusOf('api', config.INGEST_CPUS);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`soulgraph: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export function chainName(config: Pick<Config, 'CHAIN_NAMES'>, chainId: number): string {
  return config.CHAIN_NAMES.get(chainId) ?? `chain ${chainId}`;
}
