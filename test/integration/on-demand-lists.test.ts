/**
 * A list computed on demand (cold-start.ts) for a profile newer than the snapshot, as its
 * job's attempts leave it: ranked, then filled up with the most followed, in two statements.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { computeOnDemand, ON_DEMAND_BUCKET } from '../../pipeline/materialize/cold-start.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import * as world from '../fixtures/small-world.ts';
import { waitFor } from '../support/child-process.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment(world.SMALL_WORLD_SETTINGS);
let snapshotId: number;

const onDemand = (profileId: string) => computeOnDemand(env.ch, snapshotId, profileId, scoringParams(env.config), materializeQuerySettings(env.config));

const listRow = z.object({ bucket: z.coerce.number(), rank: z.coerce.number(), candidate_id: z.string(), score: z.coerce.number(), reason_subject: z.string() });
const listOf = (profileId: string) =>
  env.ch.query(
    sql`SELECT bucket, rank, candidate_id, score, reason_subject FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId} ORDER BY bucket, rank`,
    listRow,
  );

/** Profiles of the snapshot that a newcomer follows all of: its statements then outgrow ClickHouse's default 256 KiB. */
const CROWD = Array.from({ length: 3_000 }, (_, i) => `p_crowd_${String(i).padStart(4, '0')}`);

beforeAll(async () => {
  await ingestRecords(env, world.records);
  await ingestRecords(env, { profiles: CROWD.map((profileId) => ({ profileId, name: profileId, updatedAt: world.T })) });
  snapshotId = await readySnapshot(env);
  // After the snapshot: a newcomer who follows Fiona, so its list has friends of friends and filler.
  await ingestRecords(env, {
    profiles: [{ profileId: 'p_newbie', name: 'Newbie', addresses: [world.addressOf('newbie')], socialUsername: 'newbie', updatedAt: world.T }],
    follows: [{ followerProfileId: 'p_newbie', followeeProfileId: 'p_fiona', followedAt: world.T }],
  });
  // And one who follows Fiona and the whole crowd.
  await ingestRecords(env, {
    profiles: [{ profileId: 'p_joiner', name: 'Joiner', updatedAt: world.T }],
    follows: ['p_fiona', ...CROWD].map((followeeProfileId) => ({ followerProfileId: 'p_joiner', followeeProfileId, followedAt: world.T })),
  });
}, 120_000);

describe('a list computed on demand', () => {
  it('is filled up by the retry of a job that died after ranking it, which adds nothing else', async () => {
    expect(await onDemand('p_newbie')).toMatchObject({ computed: true });
    const whole = await listOf('p_newbie');
    expect(whole.filter((r) => r.score > 0).length).toBeGreaterThan(0);
    expect(whole.filter((r) => r.score === 0).length).toBeGreaterThan(0);
    expect(whole.map((r) => r.rank)).toEqual(whole.map((_, i) => i + 1));
    expect(new Set(whole.map((r) => r.bucket))).toEqual(new Set([ON_DEMAND_BUCKET]));

    // What an attempt that died between its two statements leaves: the ranked rows, no filler.
    await env.ch.command(sql`ALTER TABLE recommendations DELETE WHERE snapshot_id = ${snapshotId} AND profile_id = 'p_newbie' AND score = 0`);
    await waitFor(async () => (await listOf('p_newbie')).every((r) => r.score > 0), 15_000, 'the filler rows deleted');

    expect(await onDemand('p_newbie')).toEqual({ rows: whole.length, computed: false });
    expect(await listOf('p_newbie')).toEqual(whole);
    // And once more: a list filled already gets nothing more.
    expect(await onDemand('p_newbie')).toEqual({ rows: whole.length, computed: false });
    expect(await listOf('p_newbie')).toEqual(whole);
  });

  it('is made for a newcomer who follows 3,000 profiles, none of whom it lists', async () => {
    expect(await onDemand('p_joiner')).toMatchObject({ computed: true });
    const list = await listOf('p_joiner');
    // Fiona's followees are friends of friends; the rest is filler, none of it the crowd or Fiona.
    expect(list.filter((r) => r.score > 0).length).toBeGreaterThan(0);
    expect(list.map((r) => r.candidate_id).filter((c) => c === 'p_fiona' || c.startsWith('p_crowd_'))).toEqual([]);
  });

  it('is not made for a profile the nightly run listed, whose list stays as it is', async () => {
    const nightly = await listOf('p_me');
    expect(nightly.length).toBeGreaterThan(0);
    expect(await onDemand('p_me')).toEqual({ rows: nightly.length, computed: false });
    expect(await listOf('p_me')).toEqual(nightly);
  });
});
