/**
 * Dropping what a snapshot wrote, by partition (no TTL on ClickHouse 18.16, and a DROP
 * PARTITION is instant where a DELETE mutation rewrites parts). Snapshot tables are
 * partitioned by snapshot_id, or by (snapshot_id, bucket): ClickHouse names those
 * partitions '<snapshot>' and '<snapshot>-<bucket>'.
 */
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { dropPartitionsWhere } from '../../../shared/clickhouse/partition-drop.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';

/** Drops every partition of `snapshotId` in `tables` (on every shard of a cluster); returns how many it dropped. */
export async function dropSnapshotPartitions(ch: ClickHouse, tables: readonly string[], snapshotId: number, bucket?: number): Promise<number> {
  const wanted =
    bucket === undefined
      ? sql`(partition_id = ${String(snapshotId)} OR startsWith(partition_id, ${`${snapshotId}-`}))`
      : sql`partition_id = ${`${snapshotId}-${bucket}`}`;
  return dropPartitionsWhere(ch, tables, wanted);
}
