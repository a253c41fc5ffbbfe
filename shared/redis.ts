/**
 * Redis connection options for BullMQ. Producers (CLI, API) and workers need different
 * options (see BullMQ's "going to production" guide): a worker must wait for Redis
 * forever (maxRetriesPerRequest: null), while a producer should fail fast so that its
 * caller gets an error instead of a hung request.
 *
 * Options rather than connections: BullMQ then opens, duplicates and closes its own.
 *
 * With REDIS_CLUSTER_NODES set, the options carry the cluster's nodes and every connection
 * made from them (by BullMQ or by createRedis) is an ioredis Cluster client; queue keys are
 * then hash-tagged (QUEUE_PREFIX becomes {soulgraph}, see shared/config.ts), so each BullMQ
 * script touches one slot.
 */
import { createIORedisClient, RedisConnection, type RedisOptions } from 'bullmq';
import { Cluster, Redis, type ClusterNode } from 'ioredis';
import { servingCopyOnCluster, type Config } from './config.ts';

export type RedisRole = 'producer' | 'worker';

/** A Redis Cluster's seed nodes, riding along in the options so that every client made from them is a Cluster client. */
export interface ClusterRedisOptions extends RedisOptions {
  clusterNodes?: ClusterNode[];
}

/** A client of one Redis server or of a Redis Cluster: the commands the pipeline uses are the same. */
export type RedisClient = Redis | Cluster;

export function redisConnection(config: Pick<Config, 'REDIS_URL'> & Partial<Pick<Config, 'REDIS_CLUSTER_NODES'>>, role: RedisRole): ClusterRedisOptions {
  installBullMQClientFactory();
  if (config.REDIS_CLUSTER_NODES && config.REDIS_CLUSTER_NODES.length > 0) {
    const [first] = config.REDIS_CLUSTER_NODES;
    return { ...first, ...roleOptions(role), clusterNodes: config.REDIS_CLUSTER_NODES };
  }
  if (!config.REDIS_URL) throw new Error('REDIS_URL is not set and no local stack was started');
  return { ...addressOf(config.REDIS_URL), ...roleOptions(role) };
}

/**
 * Where the serving copy lives, the Redis the API answers from and the serving writer writes
 * to: SERVING_REDIS_URL (shared/config.ts says why it may differ); else the Redis Cluster of
 * REDIS_CLUSTER_NODES, where the copy's keys spread over the masters (shared/serving.ts);
 * else REDIS_URL.
 */
export function servingRedisConnection(
  config: Pick<Config, 'REDIS_URL' | 'SERVING_REDIS_URL'> & Partial<Pick<Config, 'REDIS_CLUSTER_NODES'>>,
  role: RedisRole,
): ClusterRedisOptions {
  if (servingCopyOnCluster(config)) return redisConnection(config, role);
  return { ...addressOf(servingRedisUrl(config)), ...roleOptions(role) };
}

/** The serving copy's one Redis server, when it is not on a cluster. */
export function servingRedisUrl(config: Pick<Config, 'REDIS_URL' | 'SERVING_REDIS_URL'>): string {
  const url = config.SERVING_REDIS_URL ?? config.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set and no local stack was started');
  return url;
}

/** A client for these options: a Cluster client when they name a cluster's nodes. */
export function createRedis(options: ClusterRedisOptions): RedisClient {
  const { clusterNodes, ...redisOptions } = options;
  if (!clusterNodes) return new Redis(redisOptions);
  const { host: _host, port: _port, ...perNode } = redisOptions;
  return new Cluster(clusterNodes, {
    redisOptions: perNode,
    // A command meets a dead master, CLUSTERDOWN or a moved slot while a replica takes over
    // (a few seconds: cluster-node-timeout plus the election); it is tried again every 300 ms
    // for up to 15 s, instead of failing after ioredis's default 16 tries of 100 ms.
    retryDelayOnFailover: 300,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 300,
    maxRedirections: 50,
    slotsRefreshTimeout: 2_000,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
    ...(perNode.enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
    ...(perNode.lazyConnect ? { lazyConnect: true } : {}),
    // Commands issued in one turn go to their nodes as one pipeline each (the serving writer's
    // SETs, whose keys are spread over the masters: a cluster pipeline takes one node's keys).
    ...(perNode.enableAutoPipelining ? { enableAutoPipelining: true } : {}),
  });
}

let factoryInstalled = false;

/**
 * BullMQ builds its own connections from options with plain ioredis; its one hook for
 * another kind of client is a process-wide factory. Clients it builds this way are its own
 * (it closes them), unlike a client passed in, which every call site would have to close.
 * Options without cluster nodes get a plain client, as BullMQ would build.
 *
 * BullMQ stops listening for a client's errors when it starts closing it, and a close that
 * meets a dead Redis can take a while (ingest-run.ts gives it seconds): the client's
 * reconnect attempts meanwhile would each print a stack as ioredis's "Unhandled error
 * event". What went wrong has already reached the caller through the command that failed.
 */
function installBullMQClientFactory(): void {
  if (factoryInstalled) return;
  factoryInstalled = true;
  RedisConnection.clientFactory = (options) => {
    const client = createRedis(options as ClusterRedisOptions);
    client.on('error', () => {});
    return createIORedisClient(client) as never;
  };
}

function roleOptions(role: RedisRole): RedisOptions {
  return role === 'worker'
    ? { maxRetriesPerRequest: null, enableReadyCheck: true }
    : { maxRetriesPerRequest: 3, enableOfflineQueue: false, connectTimeout: 5_000 };
}

/** redis://[user:password@]host:port[/db], or rediss:// for TLS. */
export function addressOf(url: string): RedisOptions {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`REDIS_URL must start with redis:// or rediss://`);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new Error('REDIS_URL database must be a number, as in redis://host:6379/0');
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
