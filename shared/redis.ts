/**
 * Redis connection options for BullMQ. Producers (CLI, API) and workers need different
 * options (see BullMQ's "going to production" guide): a worker must wait for Redis
 * forever (maxRetriesPerRequest: null), while a producer should fail fast so that its
 * caller gets an error instead of a hung request.
 *
 * Options rather than connections: BullMQ then opens, duplicates and closes its own.
 */
import type { RedisOptions } from 'bullmq';
import type { Config } from './config.ts';

export type RedisRole = 'producer' | 'worker';

export function redisConnection(config: Pick<Config, 'REDIS_URL'>, role: RedisRole): RedisOptions {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is not set and no local stack was started');
  return { ...addressOf(config.REDIS_URL), ...roleOptions(role) };
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
