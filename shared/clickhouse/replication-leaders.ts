/**
 * Which nodes lead the replication of a table: one per shard of a sharded table's local
 * table, one for a table replicated to every node. Statements that 18.16 runs only on a
 * leader (a replica forwards them there) go to it directly: the weekly compaction.
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { unlessUnreachable } from './cluster-hosts.ts';
import { sql } from './sql-literal.ts';

const leaderRow = z.object({ leader: z.coerce.number() });

/**
 * Among these nodes (a client's `nodes`), those that answer and lead `table`'s replication. A
 * node that cannot be reached leads nothing; any other refusal fails loudly (cluster-hosts.ts).
 */
export async function replicationLeaders(nodes: readonly ClickHouse[], database: string, table: string): Promise<ClickHouse[]> {
  const leads = await Promise.all(
    nodes.map(async (node) => {
      const asked = node.query(sql`SELECT toUInt8(is_leader) AS leader FROM system.replicas WHERE database = ${database} AND table = ${table}`, leaderRow);
      const [row] = await unlessUnreachable(asked, []);
      return row?.leader === 1;
    }),
  );
  return nodes.filter((_, i) => leads[i]);
}
