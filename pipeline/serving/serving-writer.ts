/**
 * Writes the serving copy (shared/serving.ts): recommendation lists, and the profile and
 * follow mirrors. Mirrors apply "newest wins" inside Redis, in one Lua script, exactly as
 * ReplacingMergeTree does in ClickHouse: chunks retried or ingested out of order, and the
 * nightly re-sync, can never put an older state over a newer one.
 */
import { Redis } from 'ioredis';
import type { Config } from '../../shared/config.ts';
import { redisConnection } from '../../shared/redis.ts';
import { followState, servingKeys, type ServedList, type ServingKeys } from '../../shared/serving.ts';

/**
 * KEYS: hashes. ARGV: (key index, field, version, value) quadruples. A field is set only
 * if its stored value's version (its leading digits, after an optional '[') is not newer.
 */
const HSET_IF_NEWER = `
for i = 1, #ARGV, 4 do
  local key = KEYS[tonumber(ARGV[i])]
  local field = ARGV[i + 1]
  local current = redis.call('HGET', key, field)
  if (not current) or tonumber(string.match(current, '^%[?(%d+)')) <= tonumber(ARGV[i + 2]) then
    redis.call('HSET', key, field, ARGV[i + 3])
  end
end
return #ARGV / 4`;

type RedisWithScripts = Redis & { hsetIfNewer(keys: number, ...args: (string | number)[]): Promise<number> };

export interface ProfileSummaryRow {
  profile_id: string;
  name: string;
  avatar: string;
  updated_at: number;
}

export interface FollowRow {
  follower_profile_id: string;
  followee_profile_id: string;
  updated_at: number;
  active: number;
}

export interface ServingWriter {
  readonly keys: ServingKeys;
  profiles(rows: readonly ProfileSummaryRow[]): Promise<void>;
  follows(rows: readonly FollowRow[]): Promise<void>;
  lists(lists: readonly { snapshotId: number; profileId: string; list: ServedList }[]): Promise<void>;
  close(): Promise<void>;
}

/** Entries per script call: long enough to amortise the round trip, short enough not to stall Redis. */
const BATCH = 2_000;

export function createServingWriter(config: Config): ServingWriter {
  const redis = new Redis({ ...redisConnection(config, 'worker'), lazyConnect: false }) as RedisWithScripts;
  redis.defineCommand('hsetIfNewer', { lua: HSET_IF_NEWER });
  const keys = servingKeys(config.QUEUE_PREFIX);
  const ttl = config.SERVING_LIST_TTL_SECONDS;

  return {
    keys,
    async profiles(rows) {
      for (let i = 0; i < rows.length; i += BATCH) {
        const args = rows
          .slice(i, i + BATCH)
          .flatMap((r) => [1, r.profile_id, r.updated_at, JSON.stringify([r.updated_at, r.name, r.avatar])]);
        await redis.hsetIfNewer(1, keys.profiles, ...args);
      }
    },
    async follows(rows) {
      for (let i = 0; i < rows.length; i += BATCH) {
        const batch = rows.slice(i, i + BATCH);
        const hashes = [...new Set(batch.map((r) => keys.following(r.follower_profile_id)))];
        const index = new Map(hashes.map((h, k) => [h, k + 1]));
        const args = batch.flatMap((r) => {
          const state = followState(r.updated_at, r.active === 1);
          return [index.get(keys.following(r.follower_profile_id))!, r.followee_profile_id, state, state];
        });
        await redis.hsetIfNewer(hashes.length, ...hashes, ...args);
      }
    },
    async lists(lists) {
      for (let i = 0; i < lists.length; i += BATCH) {
        const pipeline = redis.pipeline();
        for (const l of lists.slice(i, i + BATCH)) pipeline.set(keys.list(l.snapshotId, l.profileId), JSON.stringify(l.list), 'EX', ttl);
        const results = await pipeline.exec();
        const failed = results?.find(([error]) => error);
        if (failed) throw failed[0];
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
