/**
 * Tag ciphertexts, computed once per (network key, snapshot, profile, signer, chain, domain) and
 * kept in Redis for TAG_CACHE_SECONDS. Caching is sound because the ciphertext is useless
 * without the custodians' shares, which are given only to a valid authorization by the
 * signer: access is enforced at decryption time, not here. Concurrent misses for the same
 * entry share one computation; misses are computed in worker threads (tag-encryption-pool.ts).
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../shared/redis.ts';
import { z } from 'zod';
import type { EncryptedTags } from '../../shared/tag-crypto/tag-ciphertext.ts';
import type { TagEncryptionPool } from './tag-encryption-pool.ts';

export interface TagCiphertextKey {
  snapshotId: number;
  profileId: string;
  signer: string;
  chainId: number;
  domain: string;
}

export interface TagCiphertexts {
  /** The cached ciphertext, or one computed from `tags()` and cached. */
  get(key: TagCiphertextKey, tags: () => Promise<string[]>): Promise<EncryptedTags>;
}

const cachedSchema = z.object({ encryptedString: z.string(), encryptedSymmetricKey: z.string() });

export function createTagCiphertexts(
  redis: RedisClient,
  pool: TagEncryptionPool,
  options: { prefix: string; ttlSeconds: number; networkKeyHex: string },
): TagCiphertexts {
  // A rotated network key must never be answered with ciphertexts made for the old one.
  const keyFingerprint = createHash('sha256').update(options.networkKeyHex).digest('hex').slice(0, 16);
  const inFlight = new Map<string, Promise<EncryptedTags>>();
  const redisKey = (k: TagCiphertextKey) =>
    `${options.prefix}:${keyFingerprint}:${k.snapshotId}:${k.chainId}:${k.signer}:${createHash('sha256').update(`${k.domain}\n${k.profileId}`).digest('hex').slice(0, 24)}`;

  async function compute(key: TagCiphertextKey, cacheKey: string, tags: () => Promise<string[]>): Promise<EncryptedTags> {
    const encrypted = await pool.encrypt(await tags(), { signer: key.signer, chainId: key.chainId, domain: key.domain });
    await redis.set(cacheKey, JSON.stringify(encrypted), 'EX', options.ttlSeconds);
    return encrypted;
  }

  return {
    async get(key, tags) {
      const cacheKey = redisKey(key);
      const cached = await redis.get(cacheKey);
      if (cached !== null) {
        const parsed = cachedSchema.safeParse(JSON.parse(cached));
        if (parsed.success) return parsed.data;
      }
      let running = inFlight.get(cacheKey);
      if (!running) {
        running = compute(key, cacheKey, tags).finally(() => inFlight.delete(cacheKey));
        inFlight.set(cacheKey, running);
      }
      return running;
    },
  };
}
