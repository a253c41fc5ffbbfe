/**
 * What the tag endpoint needs besides ClickHouse: the authorization verifier, and (when
 * TAG_NETWORK_PUBLIC_KEY is set) the ciphertext cache with its encryption threads.
 */
import type { RedisClient } from '../../shared/redis.ts';
import type { Config } from '../../shared/config.ts';
import type { SignatureVerifierClient } from '../../shared/siwe/siwe-message-verification.ts';
import { createTagAccessVerifier, type TagAccessVerifier } from './tag-access.ts';
import { createTagCiphertexts, type TagCiphertexts } from './tag-ciphertexts.ts';
import { createTagEncryptionPool } from './tag-encryption-pool.ts';

export interface TagService {
  access: TagAccessVerifier;
  /** Undefined when no network public key is configured: the endpoint answers 503. */
  ciphertexts: TagCiphertexts | undefined;
  close(): Promise<void>;
}

export function createTagService(config: Config, redis: RedisClient, signatureClient: SignatureVerifierClient | undefined): TagService {
  const access = createTagAccessVerifier(config, signatureClient);
  const networkKeyHex = config.TAG_NETWORK_PUBLIC_KEY;
  if (!networkKeyHex) return { access, ciphertexts: undefined, close: async () => {} };
  const pool = createTagEncryptionPool(config.TAG_ENCRYPTION_THREADS, networkKeyHex);
  return {
    access,
    ciphertexts: createTagCiphertexts(redis, pool, {
      prefix: `${config.QUEUE_PREFIX}:tag-ciphertext`,
      ttlSeconds: config.TAG_CACHE_SECONDS,
      networkKeyHex,
    }),
    close: () => pool.close(),
  };
}
