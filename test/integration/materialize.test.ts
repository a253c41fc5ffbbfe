import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { MATERIALIZE_STEPS_QUEUE } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { computeBucket } from '../../pipeline/materialize/bucket.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { listSnapshots } from '../../pipeline/materialize/snapshots.ts';
import * as world from '../fixtures/small-world.ts';
import { ingestRecords, materializeNow, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { waitFor } from '../support/child-process.ts';

const env = useTestEnvironment({ ...world.SMALL_WORLD_SETTINGS, MATERIALIZE_ATTEMPTS: '1' });

const recommendationRow = z.object({
  profile_id: z.string(),
  rank: z.coerce.number(),
  candidate_id: z.string(),
  score: z.coerce.number(),
  reason_kind: z.string(),
  reason_chain_id: z.coerce.number(),
  reason_subject: z.string(),
});

async function listOf(snapshotId: number, profileId: string) {
  return env.ch.query(
    sql`SELECT profile_id, rank, candidate_id, score, toString(reason_kind) AS reason_kind, reason_chain_id, reason_subject
        FROM recommendations WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId} ORDER BY rank`,
    recommendationRow,
  );
}

async function rowsIn(snapshotId: number): Promise<number> {
  const [row] = await env.ch.query(sql`SELECT count() AS n FROM recommendations WHERE snapshot_id = ${snapshotId}`, z.object({ n: z.coerce.number() }));
  return row!.n;
}

describe('nightly materialization', () => {
  let first: number;

  it('ranks my candidates from all four signals with the scores and reasons worked out by hand', async () => {
    await ingestRecords(env, world.records);
    first = await readySnapshot(env);

    const list = await listOf(first, 'p_me');
    expect(list.map((r) => r.candidate_id)).toEqual(world.expectedForMe.map((e) => e.candidate));
    expect(list.map((r) => r.rank)).toEqual(list.map((_, i) => i + 1));
    list.forEach((row, i) => {
      const expected = world.expectedForMe[i]!;
      expect(row.reason_kind, row.candidate_id).toBe(expected.kind);
      expect(row.reason_subject, row.candidate_id).toBe(expected.subject);
      expect(row.score, row.candidate_id).toBeCloseTo(expected.score, 6);
      expect(row.reason_chain_id).toBe(expected.kind === 'counterparty' || expected.kind === 'nft' ? 1 : 0);
    });
  });

  it('never recommends a profile to itself or someone it follows now', async () => {
    const offenders = await env.ch.query(
      sql`SELECT profile_id, candidate_id FROM recommendations
          WHERE snapshot_id = ${first}
            AND (profile_id = candidate_id
                 OR (profile_id, candidate_id) IN (SELECT follower_profile_id, followee_profile_id FROM follows FINAL WHERE active = 1))`,
      z.object({ profile_id: z.string(), candidate_id: z.string() }),
    );
    expect(offenders).toEqual([]);
  });

  it('excludes the hub, the labelled contract and the well-known addresses, and says why', async () => {
    const rows = await env.ch.query(
      sql`SELECT address, toString(reason) AS reason FROM mat_excluded_addresses WHERE snapshot_id = ${first} ORDER BY address, reason`,
      z.object({ address: z.string(), reason: z.string() }),
    );
    expect(rows).toContainEqual({ address: world.addressOf('exchange'), reason: 'hub' });
    expect(rows).toContainEqual({ address: world.addressOf('vault'), reason: 'label' });
    expect(rows).toContainEqual({ address: '0x0000000000000000000000000000000000000000', reason: 'well-known' });
    // My own addresses have 6 counterparties: at the threshold, not above it.
    expect(rows.map((r) => r.address)).not.toContain(world.addressOf('me-1'));
  });

  it('writes the same lists again on the same data', async () => {
    const second = await readySnapshot(env);
    const [a, b] = await Promise.all([first, second].map((s) =>
      env.ch.query(
        sql`SELECT profile_id, rank, candidate_id, score, toString(reason_kind) AS reason_kind, reason_chain_id, reason_subject
            FROM recommendations WHERE snapshot_id = ${s} ORDER BY profile_id, rank`,
        recommendationRow,
      ),
    ));
    expect(b!.length).toBeGreaterThan(world.expectedForMe.length);
    expect(b).toEqual(a);
  });

  it('rewrites a retried bucket instead of adding to it, and keeps no ranked rows or copied follows once the lists are named', async () => {
    const [serving] = (await listSnapshots(env.ch)).filter((s) => s.status === 'ready').slice(-1);
    const snapshotId = serving!.snapshot_id;
    const before = await rowsIn(snapshotId);
    const mine = await listOf(snapshotId, 'p_me');
    const params = scoringParams(env.config);
    await computeBucket(env.ch, snapshotId, 0, 1, params, materializeQuerySettings(env.config));
    // An attempt that died between ranking and naming left its rows: a ranked row (one more
    // than any list has), and a copied follow from p_me to its first candidate, which would
    // take that candidate off p_me's list if the retry read it.
    const pidOf = async (profileId: string) =>
      (await env.ch.query(sql`SELECT pid FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId}`, z.object({ pid: z.coerce.number() })))[0]!.pid;
    await env.ch.command(sql`
      INSERT INTO mat_ranked (snapshot_id, bucket, p, rank, c, score, reason_kind, reason_chain_id, subject_pid, subject_collection,
                              social_score, counterparty_score, nft_score, fof_score)
      VALUES (${snapshotId}, 0, 1, 999, 2, 9, 4, 0, 0, 0, 0, 0, 0, 9)`);
    await env.ch.command(sql`
      INSERT INTO mat_bucket_follows (snapshot_id, bucket, src, dst)
      VALUES (${snapshotId}, 0, ${await pidOf('p_me')}, ${await pidOf(mine[0]!.candidate_id)})`);
    await computeBucket(env.ch, snapshotId, 0, 1, params, materializeQuerySettings(env.config));
    expect(await rowsIn(snapshotId)).toBe(before);
    expect(await listOf(snapshotId, 'p_me')).toEqual(mine);
    for (const table of ['mat_ranked', 'mat_bucket_follows']) {
      const [left] = await env.ch.query(sql`SELECT count() AS n FROM ${identifier(table)} WHERE snapshot_id = ${snapshotId}`, z.object({ n: z.coerce.number() }));
      expect(left!.n, table).toBe(0);
    }
  });

  it('names the signal with the largest weighted part as the reason', async () => {
    const config = parseConfig({ ...env.env, REC_WEIGHT_SOCIAL: '2' });
    const snapshotId = await readySnapshot(env, config);
    const [gina] = await listOf(snapshotId, 'p_me');
    expect(gina).toMatchObject({ candidate_id: 'p_gina', reason_kind: 'social' });
    expect(gina!.score).toBeCloseTo(2 + 1 / Math.log(Math.E + 3) + 1 / Math.log(Math.E + 7), 6);
  });

  it('marks a run failed when a bucket fails, and the previous snapshot keeps serving', async () => {
    const servingBefore = (await listSnapshots(env.ch)).filter((s) => s.status === 'ready').at(-1)!.snapshot_id;
    const steps = new Queue(MATERIALIZE_STEPS_QUEUE, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
    await steps.pause();
    try {
      const run = materializeNow(env);
      // The flow is queued but no bucket has run: take away a table the buckets read.
      await waitFor(async () => (await listSnapshots(env.ch)).some((s) => s.snapshot_id > servingBefore && s.status === 'building') && (await steps.getWaitingCount()) > 0, 30_000, 'the flow');
      await env.ch.command(sql`RENAME TABLE mat_collection_holders TO mat_collection_holders_away`);
      await steps.resume();
      const view = await run;
      expect(view.state).toBe('failed');
      expect(view.error).toMatch(/mat_collection_holders/);
    } finally {
      await env.ch.command(sql`RENAME TABLE mat_collection_holders_away TO mat_collection_holders`).catch(() => {});
      await steps.resume();
      await steps.close();
    }
    const snapshots = await listSnapshots(env.ch);
    expect(snapshots.at(-1)!.status).toBe('failed');
    expect(snapshots.filter((s) => s.status === 'ready').at(-1)!.snapshot_id).toBe(servingBefore);
    expect((await listOf(servingBefore, 'p_me')).length).toBe(world.expectedForMe.length);
  });

  it('runs its tags, its lists for the serving copy and its mirrors re-sync under the memory cap, like its other statements', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await readySnapshot(env);
    // Only statements given the run's settings (log_queries = 1 among them) reach the query log.
    await env.ch.command(sql`SYSTEM FLUSH LOGS`);
    const logged = async (fragment: string) => {
      const [row] = await env.ch.query(
        sql`SELECT count() AS n FROM system.query_log
            WHERE type = 2 AND event_time >= toDateTime(${since}) AND position(query, ${fragment}) > 0`,
        z.object({ n: z.coerce.number() }),
      );
      return row!.n;
    };
    expect(await logged('INSERT INTO profile_tags')).toBeGreaterThan(0);
    expect(await logged('INSERT INTO recommendations')).toBeGreaterThan(0);
    expect(await logged('SELECT profile_id, rank, candidate_id')).toBeGreaterThan(0);
    expect(await logged('SELECT follower_profile_id, count()')).toBeGreaterThan(0);
  });

  it('drops snapshots beyond retention by partition, failed ones included', async () => {
    const config = parseConfig({ ...env.env, SNAPSHOT_KEEP_READY: '1', SNAPSHOT_MIN_AGE_SECONDS: '0' });
    const newest = await readySnapshot(env, config);
    const snapshots = await listSnapshots(env.ch);
    expect(snapshots.filter((s) => s.status !== 'dropped').map((s) => s.snapshot_id)).toEqual([newest]);
    for (const s of snapshots.filter((s) => s.snapshot_id !== newest)) expect(await rowsIn(s.snapshot_id)).toBe(0);
    expect((await listOf(newest, 'p_me')).length).toBe(world.expectedForMe.length);
  });
});
