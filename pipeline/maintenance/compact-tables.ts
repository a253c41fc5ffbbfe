/**
 * Forces the merges that make ReplacingMergeTree drop superseded rows, so reads with
 * FINAL stay cheap. ClickHouse merges in the background anyway; this bounds how long
 * duplicates from re-ingestion linger.
 *
 * On a cluster a sharded table's parts live in each shard's `<name>_local`. The statement goes
 * to each shard's replication leader among CLICKHOUSE_NODE_URLS (another replica forwards it
 * there), whose replicas then apply the merge from the replication log; a table replicated
 * to every node has one leader, optimized once. It goes partition by partition, only where
 * there are parts to merge: 18.16 answers an OPTIMIZE that finds nothing to merge in a
 * Replicated table with "Unknown log entry type: 0" (measured), which rules out OPTIMIZE ...
 * ON CLUSTER and a whole-table OPTIMIZE alike.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { clusterNodes } from '../../shared/clickhouse/cluster-hosts.ts';
import { placementOf, partsTableName } from '../../shared/clickhouse/cluster-schema.ts';
import { replicationLeaders } from '../../shared/clickhouse/replication-leaders.ts';
import { awaitReplication } from '../../shared/clickhouse/replication-wait.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { recordKinds } from '../../shared/records/kinds.ts';

export const COMPACTED_TABLES = [
  ...new Set([...Object.values(recordKinds).map((k) => k.table), 'profile_identities', 'follows_by_followee', 'transfers_by_address', 'sbt_mints_by_owner', 'ingest_rejects']),
];

const optimize = (ch: ClickHouse, table: string) => ch.command(sql`OPTIMIZE TABLE ${identifier(partsTableName(ch, table))} FINAL`);

export async function compactTables(ch: ClickHouse, onTable: (table: string) => void = () => {}): Promise<void> {
  if (!ch.cluster) {
    for (const table of COMPACTED_TABLES) {
      await optimize(ch, table);
      onTable(table);
    }
    return;
  }
  if (ch.nodes.length === 0) {
    throw new Error("compaction on a cluster runs on each shard's leader: set CLICKHOUSE_NODE_URLS to every node's HTTP address (docs/cluster.md)");
  }
  const shards = new Set((await clusterNodes(ch)).map((node) => node.shard)).size;
  for (const table of COMPACTED_TABLES) {
    // The leader lists the parts to merge: first it must hold every part its peers took.
    await awaitReplication(ch, [table]);
    const leaders = await replicationLeaders(ch.nodes, ch.database, partsTableName(ch, table));
    const expected = placementOf(table).kind === 'sharded' ? shards : 1;
    if (leaders.length !== expected) {
      throw new Error(`compaction of ${table}: ${leaders.length} of the ${expected} replication leaders answered among CLICKHOUSE_NODE_URLS`);
    }
    for (const leader of leaders) await optimizeMergeablePartitions(leader, table);
    onTable(table);
  }
}

const partitionRow = z.object({ partition_id: z.string() });

/**
 * On a replication leader, each partition that has parts to merge. 18.16 answers an OPTIMIZE
 * that finds nothing to merge in a Replicated table (an empty table, a partition of one part)
 * with "Unknown log entry type: 0" (measured on the local cluster).
 */
async function optimizeMergeablePartitions(leader: ClickHouse, table: string): Promise<void> {
  const local = partsTableName(leader, table);
  const partitions = await leader.query(
    sql`SELECT partition_id FROM system.parts WHERE database = ${leader.database} AND table = ${local} AND active
        GROUP BY partition_id HAVING count() > 1 ORDER BY partition_id`,
    partitionRow,
  );
  // In the query log, as the nightly run's statements are: an operator sees when it ran where.
  for (const { partition_id } of partitions) await leader.command(sql`OPTIMIZE TABLE ${identifier(local)} PARTITION ID ${partition_id} FINAL`, { log_queries: 1 });
}
