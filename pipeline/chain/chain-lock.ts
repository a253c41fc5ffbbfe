/**
 * One follower per chain at a time, across processes (the scheduler's follow jobs, the
 * `chain follow` command): a Redis key with an expiry, renewed while the holder works and
 * released only by its holder.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const TTL_MS = 30_000;

export interface HeldLock {
  release(): Promise<void>;
}

export async function tryLockChain(redis: Redis, prefix: string, chainId: number): Promise<HeldLock | undefined> {
  const key = `${prefix}:chain-follow-lock:${chainId}`;
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', TTL_MS, 'NX')) !== 'OK') return undefined;
  const renew = setInterval(() => {
    redis
      .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0", 1, key, token, TTL_MS)
      .catch(() => {});
  }, TTL_MS / 3);
  return {
    async release() {
      clearInterval(renew);
      await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, key, token);
    },
  };
}
