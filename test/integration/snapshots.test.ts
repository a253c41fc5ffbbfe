import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { beginSnapshot, dropExpiredSnapshots, listSnapshots, setSnapshotStatus } from '../../pipeline/materialize/publish/snapshots.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const T0 = 1_800_000_000;

async function writeRows(snapshotId: number, count: number): Promise<void> {
  await env.ch.insert(
    'recommendations',
    Array.from({ length: count }, (_, i) => ({
      snapshot_id: snapshotId,
      profile_id: 'p_me',
      rank: i + 1,
      candidate_id: `p_${snapshotId}_${i}`,
      score: 1,
      reason_kind: 'social',
      reason_chain_id: 0,
      reason_subject: '',
    })),
  );
}

async function rowsOf(snapshotId: number): Promise<number> {
  const [row] = await env.ch.query(sql`SELECT count() AS n FROM recommendations WHERE snapshot_id = ${snapshotId}`, z.object({ n: z.coerce.number() }));
  return row!.n;
}

const statuses = async () => Object.fromEntries((await listSnapshots(env.ch)).map((s) => [s.snapshot_id, s.status]));

describe('recommendation snapshots', () => {
  it('numbers runs in order and lets the newest status of a snapshot win, even within one second', async () => {
    const first = await beginSnapshot(env.ch, T0);
    const second = await beginSnapshot(env.ch, T0);
    expect([first, second]).toEqual([1, 2]);
    await setSnapshotStatus(env.ch, first, 'ready', T0);
    await setSnapshotStatus(env.ch, second, 'failed', T0);
    expect(await statuses()).toEqual({ 1: 'ready', 2: 'failed' });
  });

  it('keeps the newest ready snapshots and young ones, and drops the rest by partition', async () => {
    for (const id of [3, 4, 5]) {
      expect(await beginSnapshot(env.ch, T0 + id * 100)).toBe(id);
      await writeRows(id, 10);
      await setSnapshotStatus(env.ch, id, 'ready', T0 + id * 100);
    }
    await writeRows(1, 5);
    await writeRows(2, 5); // rows of the failed run
    const dropped = await dropExpiredSnapshots(env.ch, { keepReady: 2, minAgeSeconds: 3600 }, T0 + 500 + 3600);
    // 5 and 4 are the newest ready; 3 is old enough to go; 1 (old ready) and 2 (failed) go too.
    expect(dropped.sort()).toEqual([1, 2, 3]);
    expect(await statuses()).toEqual({ 1: 'dropped', 2: 'dropped', 3: 'dropped', 4: 'ready', 5: 'ready' });
    expect(await Promise.all([1, 2, 3, 4, 5].map(rowsOf))).toEqual([0, 0, 0, 10, 10]);
  });

  it('keeps a failed run younger than the minimum age, for now', async () => {
    const id = await beginSnapshot(env.ch, T0 + 10_000);
    await writeRows(id, 3);
    await setSnapshotStatus(env.ch, id, 'failed', T0 + 10_000);
    expect(await dropExpiredSnapshots(env.ch, { keepReady: 1, minAgeSeconds: 3600 }, T0 + 10_000 + 60)).toEqual([4]);
    expect(await rowsOf(id)).toBe(3);
  });
});
