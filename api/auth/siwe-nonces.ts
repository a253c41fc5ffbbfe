/**
 * Single-use SIWE nonces in Redis. A nonce is issued to a client, embedded in the message
 * it signs, and consumed by the login: a signed message can therefore be replayed at most
 * once, and only within the TTL.
 *
 * Consumption is one DEL whose return count says whether this caller removed the key:
 * of any number of concurrent logins with the same nonce, exactly one sees 1.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../../shared/redis.ts';

export interface NonceStore {
  /** A fresh nonce, valid for the store's TTL. */
  issue(): Promise<string>;
  /** True exactly once per issued, unexpired nonce; false for unknown, used or expired ones. */
  consume(nonce: string): Promise<boolean>;
}

/** 16 random bytes as hex: 32 alphanumeric characters, as EIP-4361 requires (≥ 8). */
const NONCE_BYTES = 16;
/** What `consume` accepts: anything else cannot be ours and never reaches Redis. */
const NONCE_SHAPE = /^[0-9a-f]{32}$/;

/** Keys are `<prefix>:<nonce>`: pass a prefix of your own, e.g. `${QUEUE_PREFIX}:siwe-nonce`. */
export function createNonceStore(redis: RedisClient, ttlSeconds: number, prefix: string): NonceStore {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new RangeError('nonce TTL must be a positive integer of seconds');
  const keyOf = (nonce: string) => `${prefix}:${nonce}`;
  return {
    async issue() {
      const nonce = randomBytes(NONCE_BYTES).toString('hex');
      await redis.set(keyOf(nonce), '1', 'EX', ttlSeconds);
      return nonce;
    },
    async consume(nonce) {
      if (!NONCE_SHAPE.test(nonce)) return false;
      return (await redis.del(keyOf(nonce))) === 1;
    },
  };
}
