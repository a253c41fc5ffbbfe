/**
 * Entry point of the local stack: gives every process (npm start, the CLI, tests) a
 * ClickHouse and a Redis URL, starting private servers only for what is not configured.
 * With its own Redis for the queues it also starts one for the serving copy, without an AOF
 * (SERVING_REDIS_URL, shared/config.ts), as a deployment would run them.
 *
 * Processes of one checkout share a stack through `<DATA_DIR>/stack.json`: the first
 * one starts the servers and owns them; later ones reuse them while the owner lives.
 * If the owner died without stopping them (SIGKILL), the next process adopts them.
 */
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { servingCopyOnCluster, type Config } from '../config.ts';
import { cpusOf } from '../cpu-affinity.ts';
import { findClickHouseServer, findRedisServer, type BinarySearch } from './binaries.ts';
import { pingClickHouse, startClickHouse } from './clickhouse-server.ts';
import { pingRedis, startRedis } from './redis-server.ts';
import { isProcessAlive, killOnExit, once, releaseOnExit, stopPid } from './running-service.ts';
import { supervise, type Restart } from './supervised-service.ts';

export interface LocalStackOptions extends BinarySearch {
  /** Default: config.DATA_DIR. */
  dataDir?: string;
  /** Use servers recorded in the state file when they still answer. Default true. */
  reuse?: boolean;
  /** Record started servers in `<dataDir>/stack.json` (and serialise concurrent starts). Default true. */
  stateFile?: boolean;
  /** Password of ClickHouse's read-only `analyst` user. Default "analyst". */
  analystPassword?: string;
  /** One line per server; default silent. */
  log?: (line: string) => void;
  /** Start a separate Redis (snapshots, no AOF) for the serving copy when starting one for the queues. Default true. */
  servingRedis?: boolean;
}

export interface LocalStack {
  clickhouseUrl: string;
  redisUrl: string;
  /** The serving copy's Redis: its own server, or redisUrl. */
  servingRedisUrl: string;
  /** True if this process started (or adopted) at least one server and so must stop it. */
  owned: boolean;
  /** Stops only the servers this process owns; idempotent. */
  stop(): Promise<void>;
}

export async function ensureLocalStack(config: Config, options: LocalStackOptions = {}): Promise<LocalStack> {
  if (config.CLICKHOUSE_URL && config.REDIS_URL) return configuredStack(config.CLICKHOUSE_URL, config.REDIS_URL, config.SERVING_REDIS_URL);
  // Fail on a missing binary before anything is started.
  if (!config.CLICKHOUSE_URL) findClickHouseServer(options);
  if (!config.REDIS_URL) findRedisServer(options);
  const dataDir = resolve(options.dataDir ?? config.DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  const assemble = () => assembleStack(config, dataDir, options);
  return (options.stateFile ?? true) ? withStackLock(dataDir, assemble) : assemble();
}

/**
 * A copy of config whose CLICKHOUSE_URL, REDIS_URL and SERVING_REDIS_URL point at the stack;
 * on a Redis Cluster the serving copy stays on the cluster unless SERVING_REDIS_URL was set
 * (shared/redis.ts, servingRedisConnection).
 */
export function configWithStack(config: Config, stack: LocalStack): Config {
  return { ...config, CLICKHOUSE_URL: stack.clickhouseUrl, REDIS_URL: stack.redisUrl, SERVING_REDIS_URL: servingCopyOnCluster(config) ? undefined : stack.servingRedisUrl };
}

function configuredStack(clickhouseUrl: string, redisUrl: string, servingRedisUrl = redisUrl): LocalStack {
  return { clickhouseUrl, redisUrl, servingRedisUrl, owned: false, stop: async () => {} };
}

/**
 * The servers a stack may start: how each is named in logs, pinged, stopped, started in its
 * folder of the data dir, and which side of a host split by INGEST_CPUS it runs on
 * (shared/cpu-affinity.ts).
 */
const SERVICES = {
  clickhouse: {
    label: 'clickhouse-server',
    ping: pingClickHouse,
    stopGraceMs: 15_000,
    side: 'ingestion',
    start: (dataDir: string, options: PlacedOptions) => startClickHouse({ ...options, dir: join(dataDir, 'clickhouse') }),
  },
  redis: {
    label: 'redis-server',
    ping: pingRedis,
    stopGraceMs: 10_000,
    side: 'ingestion',
    start: (dataDir: string, options: PlacedOptions) => startRedis({ ...options, dir: join(dataDir, 'redis') }),
  },
  servingRedis: {
    label: 'redis-server (serving copy)',
    ping: pingRedis,
    stopGraceMs: 10_000,
    side: 'api',
    start: (dataDir: string, options: PlacedOptions) => startRedis({ ...options, dir: join(dataDir, 'serving-redis'), persistence: 'snapshots-on-request' }),
  },
} as const;

/** A server's start options: the stack's, and the CPUs its side runs on (undefined: anywhere). */
type PlacedOptions = LocalStackOptions & { cpus: number[] | undefined };

type ServiceName = keyof typeof SERVICES;
const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

const serviceRecordSchema = z.object({
  url: z.string(),
  pid: z.number().int().positive(),
  /** Times the owner started it again after it died (supervised-service.ts), and the last time why. */
  restarts: z.number().int().min(0).optional(),
  lastRestart: z.object({ at: z.number(), reason: z.string() }).optional(),
});
const stackStateSchema = z.object({
  clickhouse: serviceRecordSchema.optional(),
  redis: serviceRecordSchema.optional(),
  servingRedis: serviceRecordSchema.optional(),
  ownerPid: z.number().int().positive(),
});
type ServiceRecord = z.infer<typeof serviceRecordSchema>;
type StackState = z.infer<typeof stackStateSchema>;

/** A URL this process uses; `stop` is set only when this process owns the server behind it. */
interface Acquired {
  url: string;
  record?: ServiceRecord;
  stop?: () => Promise<void>;
}

async function assembleStack(config: Config, dataDir: string, options: LocalStackOptions): Promise<LocalStack> {
  const statePath = join(dataDir, 'stack.json');
  const previous = await readState(statePath);
  const ownerAlive = previous !== undefined && isProcessAlive(previous.ownerPid);
  const reusable = (options.reuse ?? true) ? previous : undefined;
  const acquire = (name: ServiceName, configured: string | undefined): Promise<Acquired> =>
    configured
      ? Promise.resolve({ url: configured })
      : reuseOrStart(name, reusable?.[name], ownerAlive, dataDir, { ...options, cpus: cpusOf(SERVICES[name].side, config.INGEST_CPUS) });

  // Only beside a Redis of the stack's own: a configured REDIS_URL, or a Redis Cluster, serves the serving copy too.
  const ownServingRedis = !config.REDIS_URL && !config.SERVING_REDIS_URL && !servingCopyOnCluster(config) && (options.servingRedis ?? true);
  const acquired = await allOrStopOwned([
    acquire('clickhouse', config.CLICKHOUSE_URL),
    acquire('redis', config.REDIS_URL),
    ...(ownServingRedis ? [acquire('servingRedis', undefined)] : []),
  ]);
  const [clickhouse, redis, servingRedis] = acquired as [Acquired, Acquired, Acquired | undefined];
  if (previous && !ownerAlive) await stopOrphans(previous, acquired);

  const owned = acquired.filter((service) => service.stop !== undefined);
  const writesState = (options.stateFile ?? true) && owned.length > 0 && !ownerAlive;
  if (writesState) {
    await writeState(statePath, {
      clickhouse: ownedRecord(clickhouse),
      redis: ownedRecord(redis),
      servingRedis: servingRedis && ownedRecord(servingRedis),
      ownerPid: process.pid,
    });
  }

  return {
    clickhouseUrl: clickhouse.url,
    redisUrl: redis.url,
    servingRedisUrl: (servingRedis ?? redis).url,
    owned: owned.length > 0,
    stop: once(async () => {
      // State file first, so no other process picks up servers that are about to go away.
      if (writesState) await removeOwnState(statePath);
      await Promise.all(owned.map((service) => service.stop!()));
    }),
  };
}

async function reuseOrStart(
  name: ServiceName,
  recorded: ServiceRecord | undefined,
  ownerAlive: boolean,
  dataDir: string,
  options: PlacedOptions,
): Promise<Acquired> {
  const service = SERVICES[name];
  if (recorded && isProcessAlive(recorded.pid) && (await service.ping(recorded.url))) {
    // Quietly: it is what every command does while `npm start` runs, and two lines of it
    // before each command's own output said nothing anyone needed.
    if (ownerAlive) return { url: recorded.url };
    options.log?.(`${service.label} on ${recorded.url}: adopting it, its owner process is gone (pid ${recorded.pid})`);
    return adopt(recorded, service.stopGraceMs);
  }
  const started = supervise(service.label, await service.start(dataDir, options), {
    ...(options.log ? { log: options.log } : {}),
    onRestart: (restart) => recordRestart(join(dataDir, 'stack.json'), name, restart),
  });
  return { url: started.url, record: { url: started.url, pid: started.pid }, stop: started.stop };
}

function ownedRecord(service: Acquired): ServiceRecord | undefined {
  return service.stop ? service.record : undefined;
}

function adopt(record: ServiceRecord, stopGraceMs: number): Acquired {
  killOnExit(record.pid);
  const stop = once(async () => {
    await stopPid(record.pid, stopGraceMs);
    releaseOnExit(record.pid);
  });
  return { url: record.url, record, stop };
}

/** Like Promise.all, but if one start fails, stops whatever the others started before rethrowing. */
async function allOrStopOwned(starts: Promise<Acquired>[]): Promise<Acquired[]> {
  const results = await Promise.allSettled(starts);
  const failure = results.find((result) => result.status === 'rejected');
  if (!failure) return results.map((result) => (result as PromiseFulfilledResult<Acquired>).value);
  await Promise.all(results.map((result) => (result.status === 'fulfilled' ? result.value.stop?.() : undefined)));
  throw failure.reason;
}

/** Servers left by a dead owner that this process did not adopt would otherwise run forever and hold the data folder. */
async function stopOrphans(previous: StackState, kept: Acquired[]): Promise<void> {
  const keptPids = new Set(kept.map((service) => service.record?.pid));
  const orphans = SERVICE_NAMES.flatMap((name) => {
    const record = previous[name];
    return record && !keptPids.has(record.pid) && isProcessAlive(record.pid) ? [{ record, name }] : [];
  });
  await Promise.all(orphans.map(({ record, name }) => stopPid(record.pid, SERVICES[name].stopGraceMs)));
}

async function readState(path: string): Promise<StackState | undefined> {
  try {
    return stackStateSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return undefined;
  }
}

async function writeState(path: string, state: StackState): Promise<void> {
  // Rename makes the write atomic: readers never see half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, path);
}

/** The owner's record of a server it started again: its new pid (so that other processes still reuse it) and the count. */
async function recordRestart(path: string, name: ServiceName, restart: Restart): Promise<void> {
  const state = await readState(path);
  const record = state?.[name];
  if (!state || !record || state.ownerPid !== process.pid) return;
  await writeState(path, { ...state, [name]: { ...record, pid: restart.pid, restarts: restart.restarts, lastRestart: { at: restart.at, reason: restart.reason } } });
}

/** What `soulgraph status` shows of the local stack: each server this checkout runs, and its restarts. */
export async function localStackState(dataDir: string): Promise<StackState | undefined> {
  return readState(join(resolve(dataDir), 'stack.json'));
}

async function removeOwnState(path: string): Promise<void> {
  const state = await readState(path);
  if (state?.ownerPid === process.pid) await unlink(path).catch(() => {});
}

const LOCK_WAIT_MS = 60_000;

/**
 * Runs fn while holding `<dataDir>/stack.lock`, so that two processes started together
 * (API and worker under npm start) do not both start a server on the same data folder.
 */
async function withStackLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const lockPath = join(dataDir, 'stack.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!(await tryCreateLock(lockPath))) {
    const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (!holder || !isProcessAlive(holder)) {
      await unlink(lockPath).catch(() => {});
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lockPath} is held by pid ${holder} for over ${LOCK_WAIT_MS / 1000} s`);
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => {});
  }
}

/** Creates the lock with our pid already inside (link is atomic), so no one ever reads an empty lock. */
async function tryCreateLock(path: string): Promise<boolean> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, String(process.pid));
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => {});
  }
}
