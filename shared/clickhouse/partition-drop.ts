/**
 * Dropping partitions by id, on one server or a cluster. On one server: the partitions
 * system.parts lists, each dropped with ALTER TABLE ... DROP PARTITION ID. On a cluster a
 * sharded table's parts live in `<name>_local` on each shard, which the connected node's
 * system.parts does not show: the partitions are listed on every node (cluster-hosts.ts,
 * everyNode) and each is dropped ON CLUSTER (ClickHouse runs it on one replica per
 * shard; replication carries it to the others). A table replicated everywhere is dropped
 * as on one server, replication doing the rest.
 *
 * For pipeline/materialize/snapshot-partitions.ts, whose listing reads system.parts by the
 * application's table names and so finds nothing of a sharded table on a cluster.
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { everyNode, unlessUnreachable } from './cluster-hosts.ts';
import { alterOnEveryShard, partsTableName } from './cluster-schema.ts';
import { inList, sql, type SqlFragment } from './sql-literal.ts';

const partitionRow = z.object({ table: z.string(), partition_id: z.string() });

/** Drops every partition of `tables` whose partition_id satisfies `wanted` (a condition on `partition_id`); returns how many it dropped. */
export async function dropPartitionsWhere(ch: ClickHouse, tables: readonly string[], wanted: SqlFragment): Promise<number> {
  if (tables.length === 0) return 0;
  const partitions = ch.cluster ? await partitionsOnEveryNode(ch, tables, wanted) : await partitionsOn(ch, sql`system.parts`, tables, wanted);
  for (const { table, partition_id } of partitions) {
    await alterOnEveryShard(ch, table, (target) => sql`ALTER TABLE ${target} DROP PARTITION ID ${partition_id}`);
  }
  return partitions.length;
}

async function partitionsOn(client: ClickHouse, parts: SqlFragment, tables: readonly string[], wanted: SqlFragment) {
  return client.query(
    sql`SELECT DISTINCT table, partition_id FROM ${parts}
        WHERE database = ${client.database} AND active AND table IN ${inList(tables)} AND ${wanted}`,
    partitionRow,
  );
}

/** (table, partition) pairs found on any node that can be reached, named by the application's table names. */
async function partitionsOnEveryNode(ch: ClickHouse, tables: readonly string[], wanted: SqlFragment) {
  const byLocal = new Map(tables.map((table) => [partsTableName(ch, table), table]));
  const found = await Promise.all(
    (await everyNode(ch)).map((node) => unlessUnreachable(partitionsOn(node.client, node.system('parts'), [...byLocal.keys()], wanted), [])),
  );
  const unique = new Map<string, { table: string; partition_id: string }>();
  for (const { table, partition_id } of found.flat()) {
    const name = byLocal.get(table) ?? table;
    unique.set(`${name}\u0000${partition_id}`, { table: name, partition_id });
  }
  return [...unique.values()];
}
