/**
 * Dropping what a snapshot wrote, by partition (no TTL on ClickHouse 18.16, and a DROP
 * PARTITION is instant where a DELETE mutation rewrites parts). Snapshot tables are
 * partitioned by snapshot_id, or by (snapshot_id, bucket): ClickHouse names those
 * partitions '<snapshot>' and '<snapshot>-<bucket>'.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { identifier, inList, sql } from '../../shared/clickhouse/sql-literal.ts';

const partitionRow = z.object({ table: z.string(), partition_id: z.string() });

/** Drops every partition of `snapshotId` in `tables`; returns how many it dropped. */
export async function dropSnapshotPartitions(ch: ClickHouse, tables: readonly string[], snapshotId: number, bucket?: number): Promise<number> {
  const wanted =
    bucket === undefined
      ? sql`(partition_id = ${String(snapshotId)} OR startsWith(partition_id, ${`${snapshotId}-`}))`
      : sql`partition_id = ${`${snapshotId}-${bucket}`}`;
  const partitions = await ch.query(
    sql`SELECT DISTINCT table, partition_id FROM system.parts
        WHERE database = currentDatabase() AND active AND table IN ${inList(tables)} AND ${wanted}`,
    partitionRow,
  );
  for (const { table, partition_id } of partitions) {
    await ch.command(sql`ALTER TABLE ${identifier(table)} DROP PARTITION ID ${partition_id}`);
  }
  return partitions.length;
}
