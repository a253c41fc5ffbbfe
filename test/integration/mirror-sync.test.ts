import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncMirrors, type MirrorSyncOptions } from '../../pipeline/serving/mirror-sync.ts';
import { createServingWriter, type ServingWriter } from '../../pipeline/serving/serving-writer.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { followState } from '../../shared/serving.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let writer: ServingWriter;
let redis: Redis;

const HOUR = 3600;
const nightly: MirrorSyncOptions = { marginSeconds: HOUR, fullSyncEverySeconds: 7 * 24 * HOUR };
const now = () => Math.floor(Date.now() / 1000);

beforeAll(() => {
  writer = createServingWriter(env.config);
  redis = new Redis(env.config.REDIS_URL!);
});

afterAll(async () => {
  await writer.close();
  await redis.quit();
});

/** Each test starts from empty tables and an empty serving keyspace. */
beforeEach(async () => {
  await env.ch.command(sql`TRUNCATE TABLE profiles`);
  await env.ch.command(sql`TRUNCATE TABLE follows`);
  const keys = await redis.keys(`${env.config.QUEUE_PREFIX}:serving:*`);
  if (keys.length > 0) await redis.del(...keys);
});

async function ingestFollows(rows: { follower: string; followee: string; updatedAt: number; active: boolean; ingestedAt: number }[]) {
  await env.ch.insert(
    'follows',
    rows.map((r) => ({
      follower_profile_id: r.follower,
      followee_profile_id: r.followee,
      followed_at: r.updatedAt,
      unfollowed_at: r.active ? null : r.updatedAt,
      active: r.active ? 1 : 0,
      updated_at: r.updatedAt,
      ingested_at: r.ingestedAt,
    })),
  );
}

async function ingestProfile(profileId: string, name: string, updatedAt: number, ingestedAt: number) {
  await env.ch.insert('profiles', [
    { profile_id: profileId, name, avatar: '', addresses: [], social_username: '', game_platform_id: '', updated_at: updatedAt, ingested_at: ingestedAt },
  ]);
}

const following = (profileId: string) => redis.hgetall(writer.keys.following(profileId));
const profileSummary = async (profileId: string) => JSON.parse((await redis.hget(writer.keys.profiles(profileId), profileId)) ?? 'null');

describe('the nightly re-sync of the mirrors', () => {
  it('copies every row into a Redis that has no record of a complete re-sync (flushed, or the first run)', async () => {
    const t = now() - 10 * 24 * HOUR;
    await ingestProfile('p_a', 'Ann\t"quoted" \\ ⛓', t, t);
    await ingestFollows([
      { follower: 'p_a', followee: 'p_b', updatedAt: t, active: true, ingestedAt: t },
      { follower: 'p_a', followee: 'p_c', updatedAt: t, active: false, ingestedAt: t },
    ]);

    const result = await syncMirrors(env.ch, writer, nightly);

    expect(result).toMatchObject({ full: true, profiles: 1, follows: 2, committed: true });
    expect(await profileSummary('p_a')).toEqual([t, 'Ann\t"quoted" \\ ⛓', '']);
    expect(await following('p_a')).toEqual({ p_b: String(followState(t, true)), p_c: String(followState(t, false)) });
  });

  it('then copies only the rows ingested since the last re-sync began, less the margin', async () => {
    const old = now() - 2 * 24 * HOUR;
    await ingestFollows([{ follower: 'p_a', followee: 'p_b', updatedAt: old, active: true, ingestedAt: old }]);
    await syncMirrors(env.ch, writer, nightly);
    const recent = now();
    await ingestFollows([
      { follower: 'p_a', followee: 'p_c', updatedAt: recent, active: true, ingestedAt: recent },
      { follower: 'p_d', followee: 'p_a', updatedAt: recent, active: true, ingestedAt: recent },
    ]);
    await ingestProfile('p_d', 'Dee', recent, recent);

    const result = await syncMirrors(env.ch, writer, nightly);

    expect(result).toMatchObject({ full: false, profiles: 1, follows: 2, committed: true });
    expect(result.since).toBeLessThanOrEqual(recent - HOUR);
    expect(Object.keys(await following('p_a')).sort()).toEqual(['p_b', 'p_c']);
    expect(await profileSummary('p_d')).toEqual([recent, 'Dee', '']);
  });

  it('copies a row that a slow chunk stamped before the last re-sync began but wrote after it read', async () => {
    await syncMirrors(env.ch, writer, nightly);
    const stampedBefore = now() - 60;
    await ingestFollows([{ follower: 'p_a', followee: 'p_late', updatedAt: stampedBefore, active: true, ingestedAt: stampedBefore }]);

    const result = await syncMirrors(env.ch, writer, nightly);

    expect(result).toMatchObject({ full: false, follows: 1 });
    expect(await following('p_a')).toEqual({ p_late: String(followState(stampedBefore, true)) });
  });

  it('loses nothing ingested while a re-sync runs', async () => {
    const t = now() - 3 * 24 * HOUR;
    const initial = Array.from({ length: 20_000 }, (_, i) => ({ follower: `p_${i % 500}`, followee: `p_x${i}`, updatedAt: t, active: true, ingestedAt: t }));
    await ingestFollows(initial);
    const during = Array.from({ length: 50 }, (_, i) => ({ follower: 'p_new', followee: `p_y${i}`, updatedAt: now(), active: true, ingestedAt: now() }));

    const [first] = await Promise.all([
      syncMirrors(env.ch, writer, nightly),
      (async () => {
        for (const row of during) await ingestFollows([{ ...row, ingestedAt: now() }]);
      })(),
    ]);
    await syncMirrors(env.ch, writer, nightly);

    expect(first.full).toBe(true);
    expect(Object.keys(await following('p_new')).length).toBe(during.length);
    expect(Object.keys(await following('p_0')).length).toBe(initial.length / 500);
  });

  it('never puts an older state over a newer one', async () => {
    const t = now() - 24 * HOUR;
    // The workers wrote the newer states through; a replayed older chunk reaches ClickHouse later.
    await writer.follows([{ follower_profile_id: 'p_a', followee_profile_id: 'p_b', updated_at: t + 100, active: 0 }]);
    await writer.profiles([{ profile_id: 'p_a', name: 'New name', avatar: '', updated_at: t + 100 }]);
    await syncMirrors(env.ch, writer, nightly);
    await ingestFollows([{ follower: 'p_a', followee: 'p_b', updatedAt: t, active: true, ingestedAt: now() }]);
    await ingestProfile('p_a', 'Old name', t, now());
    // Two states of a follow the mirror never saw, the newer one written first, both read in one batch.
    await ingestFollows([{ follower: 'p_a', followee: 'p_e', updatedAt: t + 50, active: false, ingestedAt: now() }]);
    await ingestFollows([{ follower: 'p_a', followee: 'p_e', updatedAt: t + 10, active: true, ingestedAt: now() }]);

    const result = await syncMirrors(env.ch, writer, nightly);

    expect(result).toMatchObject({ full: false, profiles: 1, follows: 3 });
    expect(await following('p_a')).toEqual({ p_b: String(followState(t + 100, false)), p_e: String(followState(t + 50, false)) });
    expect(await profileSummary('p_a')).toEqual([t + 100, 'New name', '']);
  });

  it('copies every row again when Redis was flushed during the last re-sync', async () => {
    const t = now() - 24 * HOUR;
    await ingestFollows([{ follower: 'p_a', followee: 'p_b', updatedAt: t, active: true, ingestedAt: t - 2 * 24 * HOUR }]);
    await writer.mirrorSync.begin('a re-sync in progress');
    await redis.del(writer.keys.mirrorSync);
    expect(await writer.mirrorSync.commit('a re-sync in progress', { watermark: now(), fullAt: now() })).toBe(false);

    expect(await syncMirrors(env.ch, writer, nightly)).toMatchObject({ full: true, follows: 1 });
  });

  it('copies every row again once the last full re-sync is older than the configured period', async () => {
    const t = now() - 30 * 24 * HOUR;
    await ingestFollows([{ follower: 'p_a', followee: 'p_b', updatedAt: t, active: true, ingestedAt: t }]);
    await syncMirrors(env.ch, writer, nightly);
    await redis.hset(writer.keys.mirrorSync, 'full_at', now() - 8 * 24 * HOUR);

    expect(await syncMirrors(env.ch, writer, nightly)).toMatchObject({ full: true, follows: 1 });
    expect(await syncMirrors(env.ch, writer, nightly)).toMatchObject({ full: false, follows: 0 });
  });
});
