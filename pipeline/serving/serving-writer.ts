/**
 * Writes the serving copy (shared/serving.ts): recommendation lists, and the profile and
 * follow mirrors. Mirrors apply "newest wins" inside Redis (hset-if-newer.ts), exactly as
 * ReplacingMergeTree does in ClickHouse: chunks retried or ingested out of order, and the
 * nightly re-sync, can never put an older state over a newer one.
 */
import { Cluster } from 'ioredis';
import type { Config } from '../../shared/config.ts';
import { createRedis, servingRedisConnection } from '../../shared/redis.ts';
import { followState, servingKeys, type ServingKeys } from '../../shared/serving.ts';
import { hsetIfNewer } from './hset-if-newer.ts';
import { mirrorSyncStateStore, type MirrorSyncStateStore } from './mirror-sync-state.ts';

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

/**
 * A follower's follows as the mirror stores them, packed for hset-if-newer.ts: `count`
 * triples (followee, state, state), each part followed by SEPARATOR, where state is
 * followState(updated_at, active) (shared/serving.ts), both the version and the value.
 */
export interface PackedFollows {
  follower: string;
  count: number;
  packed: string;
}

/** A recommendation list ready to store: `text` as encodeServedList (shared/serving.ts) writes it (its UTF-8 bytes, from a rank thread). */
export interface StoredList {
  snapshotId: number;
  profileId: string;
  text: string | Buffer;
}

export interface ServingWriter {
  readonly keys: ServingKeys;
  profiles(rows: readonly ProfileSummaryRow[]): Promise<void>;
  follows(rows: readonly FollowRow[]): Promise<void>;
  packedFollows(groups: readonly PackedFollows[]): Promise<void>;
  lists(lists: readonly StoredList[]): Promise<void>;
  /** The nightly re-sync's progress (mirror-sync-state.ts). */
  readonly mirrorSync: MirrorSyncStateStore;
  /**
   * Asks the serving Redis (each master of a cluster) for a background snapshot (BGSAVE
   * SCHEDULE), once a run has published: its only save, since it runs without save rules
   * (docs/operations.md). One already under way is as good.
   */
  snapshot(): Promise<void>;
  close(): Promise<void>;
}

/** Lists per pipeline round trip. */
const LISTS_PER_TRIP = 2_000;

export function createServingWriter(config: Config): ServingWriter {
  const options = servingRedisConnection(config, 'worker');
  // Auto-pipelining only on a cluster, where the writes' keys are spread over the masters.
  const redis = createRedis({ ...options, lazyConnect: false, enableAutoPipelining: options.clusterNodes !== undefined });
  // A write that fails rejects its caller's job, which reports it; without a listener ioredis
  // would also print a stack per reconnect attempt while the Redis is away.
  redis.on('error', () => {});
  const setIfNewer = hsetIfNewer(redis);
  const keys = servingKeys(config);
  const ttl = config.SERVING_LIST_TTL_SECONDS;

  return {
    keys,
    mirrorSync: mirrorSyncStateStore(redis, keys.mirrorSync),
    profiles(rows) {
      return setIfNewer.writes(
        rows.map((r) => ({ hash: keys.profiles(r.profile_id), field: r.profile_id, version: r.updated_at, value: JSON.stringify([r.updated_at, r.name, r.avatar]) })),
      );
    },
    follows(rows) {
      return setIfNewer.writes(
        rows.map((r) => {
          const state = followState(r.updated_at, r.active === 1);
          return { hash: keys.following(r.follower_profile_id), field: r.followee_profile_id, version: state, value: state };
        }),
      );
    },
    packedFollows(groups) {
      return setIfNewer.packed(groups.map((g) => ({ hash: keys.following(g.follower), count: g.count, packed: g.packed })));
    },
    async lists(lists) {
      for (let i = 0; i < lists.length; i += LISTS_PER_TRIP) {
        const batch = lists.slice(i, i + LISTS_PER_TRIP);
        const set = (l: StoredList) => [keys.list(l.snapshotId, l.profileId), l.text, 'EX', ttl] as const;
        // A cluster pipeline takes one master's keys: issued together, the SETs are
        // auto-pipelined, one pipeline per master their keys are on.
        if (redis instanceof Cluster) {
          await Promise.all(batch.map((l) => redis.set(...set(l))));
          continue;
        }
        const pipeline = redis.pipeline();
        for (const l of batch) pipeline.set(...set(l));
        const results = await pipeline.exec();
        const failed = results?.find(([error]) => error);
        if (failed) throw failed[0];
      }
    },
    async snapshot() {
      const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
      await Promise.all(
        servers.map((server) =>
          server.bgsave('SCHEDULE').catch((error: unknown) => {
            if (!/already in progress/i.test(String(error))) throw error;
          }),
        ),
      );
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
