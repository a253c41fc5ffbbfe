/**
 * A list computed on demand (run/on-demand-lists.ts) for a profile newer than the snapshot:
 * ranked from the world the worker holds, with the caller's own facts read live.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listOnDemand, ON_DEMAND_BUCKET, type OnDemandDeps } from '../../pipeline/materialize/run/on-demand-lists.ts';
import { WorldCache } from '../../pipeline/materialize/run/loaded-world.ts';
import { createServingWriter } from '../../pipeline/serving/serving-writer.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { engineSettings, materializeQuerySettings } from '../../pipeline/materialize/engine-settings.ts';
import { readOwnFacts } from '../../pipeline/materialize/load/own-facts-reader.ts';
import { rankingModelOf } from '../../pipeline/materialize/publish/ranking-models.ts';
import { Ranker, type RankedList } from '../../pipeline/materialize/rank/ranker.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { decodeServedList } from '../../shared/serving.ts';
import { Redis } from 'ioredis';
import { servingRedisUrl } from '../../shared/redis.ts';
import * as world from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot, silentLogger } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment(world.SMALL_WORLD_SETTINGS);
let snapshotId: number;
let deps: OnDemandDeps;

const listRow = z.object({ bucket: z.coerce.number(), rank: z.coerce.number(), candidate_id: z.string(), reason_kind: z.string(), reason_subject: z.string() });
const listOf = (profileId: string) =>
  env.ch.query(
    sql`SELECT bucket, rank, candidate_id, toString(reason_kind) AS reason_kind, reason_subject FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId} ORDER BY bucket, rank`,
    listRow,
  );

/** Profiles of the snapshot that a newcomer follows all of. */
const CROWD = Array.from({ length: 3_000 }, (_, i) => `p_crowd_${String(i).padStart(4, '0')}`);

beforeAll(async () => {
  await ingestRecords(env, world.records);
  await ingestRecords(env, { profiles: CROWD.map((profileId) => ({ profileId, name: profileId, updatedAt: world.T })) });
  snapshotId = await readySnapshot(env);
  // After the snapshot: a newcomer who follows Fiona, and one who follows Fiona and the whole crowd.
  await ingestRecords(env, {
    profiles: [
      { profileId: 'p_newbie', name: 'Newbie', addresses: [world.addressOf('newbie')], socialUsername: 'newbie', updatedAt: world.T },
      { profileId: 'p_joiner', name: 'Joiner', updatedAt: world.T },
    ],
    follows: [
      { followerProfileId: 'p_newbie', followeeProfileId: 'p_fiona', followedAt: world.T },
      ...['p_fiona', ...CROWD].map((followeeProfileId) => ({ followerProfileId: 'p_joiner', followeeProfileId, followedAt: world.T })),
    ],
  });
  deps = { config: env.config, clickhouse: env.ch, serving: createServingWriter(env.config), worlds: new WorldCache(env.ch, env.config, silentLogger) };
}, 120_000);

afterAll(async () => {
  await deps?.worlds.close();
  await deps?.serving.close();
});

describe('a list computed on demand', () => {
  it("lists a newcomer's friends of friends, each followed by the friend it follows, and someone who follows the same friend", async () => {
    expect(await listOnDemand(deps, snapshotId, 'p_newbie')).toMatchObject({ computed: true });
    const list = await listOf('p_newbie');
    expect(new Set(list.map((r) => r.bucket))).toEqual(new Set([ON_DEMAND_BUCKET]));
    expect(list.map((r) => r.rank)).toEqual(list.map((_, i) => i + 1));
    // Fiona follows gina, hank and me; Felix follows Fiona too (both follow her: no reason names it).
    const reasons = new Map(list.map((r) => [r.candidate_id, `${r.reason_kind} ${r.reason_subject}`.trim()]));
    for (const friendOfFriend of ['p_gina', 'p_hank', 'p_me']) expect(reasons.get(friendOfFriend), friendOfFriend).toBe('friend_of_friend p_fiona');
    expect(reasons.get('p_felix')).toBe('network');
    expect(reasons.has('p_fiona')).toBe(false);
    expect(reasons.has('p_newbie')).toBe(false);
  });

  it('puts the list in the serving copy, where the API reads it', async () => {
    const redis = new Redis(servingRedisUrl(env.config));
    try {
      const stored = await redis.get(deps.serving.keys.list(snapshotId, 'p_newbie'));
      const list = await listOf('p_newbie');
      expect(decodeServedList(stored!).e.map((e) => e[0])).toEqual(list.slice(0, env.config.SERVING_DEPTH).map((r) => r.candidate_id));
    } finally {
      redis.disconnect();
    }
  });

  it('republishes a list the snapshot holds instead of computing it again', async () => {
    const whole = await listOf('p_newbie');
    expect(await listOnDemand(deps, snapshotId, 'p_newbie')).toEqual({ rows: whole.length, computed: false });
    expect(await listOf('p_newbie')).toEqual(whole);
  });

  it('is made for a newcomer who follows 3,000 profiles, none of whom it lists', async () => {
    expect(await listOnDemand(deps, snapshotId, 'p_joiner')).toMatchObject({ computed: true });
    const list = await listOf('p_joiner');
    expect(list.filter((r) => r.reason_kind === 'friend_of_friend').length).toBeGreaterThan(0);
    expect(list.map((r) => r.candidate_id).filter((c) => c === 'p_fiona' || c === 'p_joiner' || c.startsWith('p_crowd_'))).toEqual([]);
  });

  it('is not made for a profile the nightly run listed, whose list stays as it is', async () => {
    const nightly = await listOf('p_me');
    expect(nightly.length).toBeGreaterThan(0);
    expect(await listOnDemand(deps, snapshotId, 'p_me')).toEqual({ rows: nightly.length, computed: false });
    expect(await listOf('p_me')).toEqual(nightly);
  });

  it('answers an empty list for an id no profile has, so that the API stops asking', async () => {
    expect(await listOnDemand(deps, snapshotId, 'p_nobody')).toEqual({ rows: 0, computed: true });
  });
});

describe('the facts read live for a list on demand', () => {
  it('rank every profile of the world exactly as the world itself does: same candidates, scores and reasons', async () => {
    const loaded = await deps.worlds.forSnapshot(snapshotId);
    const model = await rankingModelOf(env.ch, snapshotId);
    const settings = engineSettings(env.config);
    const ranker = new Ranker(loaded.world, loaded.settings);
    const plain = (list: RankedList) =>
      Array.from({ length: list.length }, (_, i) => [list.candidate[i], list.score[i]!.toFixed(9), list.kind[i], list.subject[i], list.chainId[i]].join(' '));
    let compared = 0;
    // The small world's profiles, whose facts cover every signal (the crowd follows nobody).
    for (const [p, id] of loaded.world.profiles.ids.entries()) {
      if (id.startsWith('p_crowd_')) continue;
      const fromWorld = plain(ranker.rank(p, model));
      const own = await readOwnFacts(env.ch, loaded.world, id, settings.load, materializeQuerySettings(env.config));
      expect(plain(ranker.rank(own!, model)), id).toEqual(fromWorld);
      compared++;
    }
    expect(compared).toBe(loaded.world.profiles.size - CROWD.length);
  }, 60_000);
});

describe('a worker process', () => {
  it('loads the newest ready snapshot\'s world as it starts, before any newcomer waits for it', async () => {
    const lines: { msg?: string; snapshotId?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const workers = await startWorkers(env.config, logger, { kinds: [], maintenance: false, materialize: true });
    try {
      await expect.poll(() => lines.find((l) => l.msg === 'world loaded')?.snapshotId, { timeout: 30_000 }).toBe(snapshotId);
    } finally {
      await workers.close();
    }
  });
});
