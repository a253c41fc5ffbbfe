/**
 * Which sign-in registers a new profile. The registration goes through the pipeline, so the
 * profile is readable in ClickHouse only a moment after the first sign-in answered; a
 * second sign-in in that moment must not register it again with another invite code. The
 * first one claims the profile in Redis (one SET NX, so of concurrent sign-ins exactly one
 * wins), for long enough that the profile is in ClickHouse by the time the claim expires.
 */
import type { RedisClient } from '../../shared/redis.ts';

export interface RegistrationClaims {
  /** True for the one sign-in that registers `profileId`; false when another already does. */
  claim(profileId: string): Promise<boolean>;
  /** Gives a claim back when its registration could not be queued, so that a retry can register. */
  release(profileId: string): Promise<void>;
}

/** Keys are `<prefix>:<profileId>`: pass a prefix of your own, e.g. `${QUEUE_PREFIX}:registration`. */
export function createRegistrationClaims(redis: RedisClient, ttlSeconds: number, prefix: string): RegistrationClaims {
  const keyOf = (profileId: string) => `${prefix}:${profileId}`;
  return {
    async claim(profileId) {
      return (await redis.set(keyOf(profileId), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
    },
    async release(profileId) {
      await redis.del(keyOf(profileId));
    },
  };
}
