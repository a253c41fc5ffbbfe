import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { MATERIALIZE_STEPS_QUEUE } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { listSnapshots } from '../../pipeline/materialize/publish/snapshots.ts';
import { rankingModelOf } from '../../pipeline/materialize/publish/ranking-models.ts';
import { DEFAULT_MODEL } from '../../pipeline/materialize/rank/ranking-model.ts';
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
  social_score: z.coerce.number(),
  counterparty_score: z.coerce.number(),
  nft_score: z.coerce.number(),
  fof_score: z.coerce.number(),
});

async function listOf(snapshotId: number, profileId: string) {
  return env.ch.query(
    sql`SELECT profile_id, rank, candidate_id, score, toString(reason_kind) AS reason_kind, reason_chain_id, reason_subject,
               social_score, counterparty_score, nft_score, fof_score
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

  it('lists my candidates from all four signals, each with the reason and the signals\' parts worked out by hand', async () => {
    await ingestRecords(env, world.records);
    first = await readySnapshot(env);
    const list = await listOf(first, 'p_me');
    // Every profile I could be recommended is a candidate: nothing is left to fill up with.
    const scored = list.filter((r) => r.reason_kind !== 'popular');
    expect(scored).toHaveLength(list.length);
    expect(new Set(scored.map((r) => r.candidate_id))).toEqual(new Set(world.expectedForMe.map((e) => e.candidate)));
    for (const expected of world.expectedForMe) {
      const row = scored.find((r) => r.candidate_id === expected.candidate)!;
      expect({ kind: row.reason_kind, subject: row.reason_subject }, expected.candidate).toEqual({ kind: expected.kind, subject: expected.subject });
      expect(row.social_score, expected.candidate).toBeCloseTo(expected.social, 9);
      expect(row.counterparty_score, expected.candidate).toBeCloseTo(expected.counterparty, 9);
      expect(row.nft_score, expected.candidate).toBeCloseTo(expected.nft, 9);
      expect(row.reason_chain_id).toBe(expected.kind === 'counterparty' ? 1 : 0);
    }
    expect(list.map((r) => r.rank)).toEqual(list.map((_, i) => i + 1));
  });

  it('orders each list by score, each score the sum of its signals\' parts', async () => {
    const list = await listOf(first, 'p_me');
    for (const row of list) expect(row.score, row.candidate_id).toBeCloseTo(row.social_score + row.counterparty_score + row.nft_score + row.fof_score, 9);
    const scores = list.filter((r) => r.reason_kind !== 'popular').map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('fills a list with the most followed profiles where no signal speaks for anyone, each "popular" at score 0', async () => {
    const list = await listOf(first, 'p_alice');
    expect(list.map((r) => r.candidate_id)).toEqual(world.expectedForAlice);
    expect(list.every((r) => r.reason_kind === 'popular' && r.score === 0 && r.reason_subject === '')).toBe(true);
  });

  it('keeps the model that ranked the snapshot: the default weights, for a world too small to fit', async () => {
    expect(await rankingModelOf(env.ch, first)).toEqual(DEFAULT_MODEL);
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

  it('counts no transfer with the hub, the labelled contract, dust or a zero-value token transfer', async () => {
    const list = await listOf(first, 'p_me');
    const byTransfer = list.filter((r) => r.counterparty_score > 0).map((r) => r.candidate_id);
    expect(byTransfer.sort()).toEqual(['p_bob', 'p_carol']);
  });

  it('writes the same lists again on the same data', async () => {
    const second = await readySnapshot(env);
    const [a, b] = await Promise.all(
      [first, second].map((s) =>
        env.ch.query(
          sql`SELECT profile_id, rank, candidate_id, score, toString(reason_kind) AS reason_kind, reason_chain_id, reason_subject,
                     social_score, counterparty_score, nft_score, fof_score
              FROM recommendations WHERE snapshot_id = ${s} ORDER BY profile_id, rank`,
          recommendationRow,
        ),
      ),
    );
    expect(b!.length).toBeGreaterThan(world.expectedForMe.length);
    expect(b).toEqual(a);
  });

  it('marks a run failed when a bucket fails, and the previous snapshot keeps serving', async () => {
    const servingBefore = (await listSnapshots(env.ch)).filter((s) => s.status === 'ready').at(-1)!.snapshot_id;
    const steps = new Queue(MATERIALIZE_STEPS_QUEUE, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
    await steps.pause();
    try {
      const run = materializeNow(env);
      // The flow is queued but no bucket has run: take away the table the buckets write.
      await waitFor(async () => (await listSnapshots(env.ch)).some((s) => s.snapshot_id > servingBefore && s.status === 'building') && (await steps.getWaitingCount()) > 0, 30_000, 'the flow');
      await env.ch.command(sql`RENAME TABLE recommendations TO recommendations_away`);
      await steps.resume();
      const view = await run;
      expect(view.state).toBe('failed');
      expect(view.error).toMatch(/recommendations/);
    } finally {
      await env.ch.command(sql`RENAME TABLE recommendations_away TO recommendations`).catch(() => {});
      await steps.resume();
      await steps.close();
    }
    const snapshots = await listSnapshots(env.ch);
    expect(snapshots.at(-1)!.status).toBe('failed');
    expect(snapshots.filter((s) => s.status === 'ready').at(-1)!.snapshot_id).toBe(servingBefore);
    expect((await listOf(servingBefore, 'p_me')).length).toBe(world.expectedForMe.length);
  });

  it('reads its inputs and writes its tags and lists under the memory cap, logged like its other statements', async () => {
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
    expect(await logged('FROM follows FINAL')).toBeGreaterThan(0);
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
