/**
 * The life of a recommendation snapshot: a run takes the next id and writes under it
 * ('building'), then marks it 'ready' in one row, which is when the API starts reading it;
 * a run that dies is marked 'failed' and the previous snapshot keeps serving. Retention
 * drops old snapshots' rows by partition (no TTL on ClickHouse 18.16) and marks them
 * 'dropped', so that a cursor still pointing at one answers "expired" instead of an
 * empty page.
 *
 * One run at a time: the nightly job is a single BullMQ job scheduler entry.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';
import { dropSnapshotPartitions } from './snapshot-partitions.ts';

export type SnapshotStatus = 'building' | 'ready' | 'failed' | 'dropped';

/** Tables written under a snapshot id (partitioned by it), all dropped with the snapshot. */
export const SNAPSHOT_TABLES = ['recommendations', 'profile_tags'] as const;

const snapshotRow = z.object({
  snapshot_id: z.coerce.number(),
  status: z.enum(['building', 'ready', 'failed', 'dropped']),
  created_at: z.coerce.number(),
  updated_at: z.coerce.number(),
});
export type SnapshotRow = z.infer<typeof snapshotRow>;

export async function listSnapshots(ch: ClickHouse): Promise<SnapshotRow[]> {
  return ch.query(
    sql`SELECT snapshot_id, toString(status) AS status, toUnixTimestamp(created_at) AS created_at,
               toUnixTimestamp(updated_at) AS updated_at
        FROM recommendation_snapshots FINAL
        ORDER BY snapshot_id`,
    snapshotRow,
  );
}

/** Takes the next snapshot id and records it as 'building'. */
export async function beginSnapshot(ch: ClickHouse, now = nowSeconds()): Promise<number> {
  const snapshots = await listSnapshots(ch);
  const snapshotId = (snapshots.at(-1)?.snapshot_id ?? 0) + 1;
  await ch.insert('recommendation_snapshots', [{ snapshot_id: snapshotId, status: 'building', created_at: now, updated_at: now }]);
  return snapshotId;
}

export async function setSnapshotStatus(ch: ClickHouse, snapshotId: number, status: SnapshotStatus, now = nowSeconds()): Promise<void> {
  const current = (await listSnapshots(ch)).find((s) => s.snapshot_id === snapshotId);
  if (!current) throw new Error(`snapshot ${snapshotId} does not exist`);
  // The newest updated_at wins: a change within the same second as the last one must still win.
  const updatedAt = Math.max(now, current.updated_at + 1);
  await ch.insert('recommendation_snapshots', [{ snapshot_id: snapshotId, status, created_at: current.created_at, updated_at: updatedAt }]);
}

export interface RetentionPolicy {
  /** Ready snapshots kept, newest first (the one serving, plus some for open cursors). */
  keepReady: number;
  /** Nothing younger than this is dropped, so a cursor handed out just before a swap keeps working. */
  minAgeSeconds: number;
}

/**
 * Drops the rows of snapshots outside the policy (old ready ones, and failed or
 * abandoned building ones) and marks them 'dropped'. Returns the dropped ids. Run it at
 * the end of a successful run: runs never overlap, so any other 'building' snapshot then
 * belongs to a run that died.
 */
export async function dropExpiredSnapshots(ch: ClickHouse, policy: RetentionPolicy, now = nowSeconds()): Promise<number[]> {
  const snapshots = await listSnapshots(ch);
  const keptReady = new Set(
    snapshots
      .filter((s) => s.status === 'ready')
      .slice(-policy.keepReady)
      .map((s) => s.snapshot_id),
  );
  const expired = snapshots.filter(
    (s) => s.status !== 'dropped' && !keptReady.has(s.snapshot_id) && now - s.updated_at >= policy.minAgeSeconds,
  );
  for (const snapshot of expired) {
    await dropSnapshotPartitions(ch, SNAPSHOT_TABLES, snapshot.snapshot_id);
    await setSnapshotStatus(ch, snapshot.snapshot_id, 'dropped', now);
  }
  return expired.map((s) => s.snapshot_id);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
