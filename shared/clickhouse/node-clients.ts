/**
 * A client of each node of a cluster, from CLICKHOUSE_NODE_URLS (every node's HTTP address),
 * with the service's own credentials: for work that must run on particular nodes rather
 * than through the Distributed tables (the nightly run's buckets spread over the nodes, the
 * weekly compaction on each shard's replication leader).
 */
import { z } from 'zod';
import { createClickHouse, type ClickHouse } from './client.ts';
import type { Config } from '../config.ts';
import { sql } from './sql-literal.ts';

export interface NodeClient {
  client: ClickHouse;
  /** host:port of its URL. */
  address: string;
}

/** One client per CLICKHOUSE_NODE_URLS entry, in its order; none when it is unset. */
export function nodeClients(config: Config): NodeClient[] {
  return config.CLICKHOUSE_NODE_URLS.map((url) => ({ client: createClickHouse({ ...config, CLICKHOUSE_URL: url }), address: new URL(url).host }));
}

const leaderRow = z.object({ leader: z.coerce.number() });

/**
 * The nodes that lead the replication of `table` (one per shard of a sharded table's local
 * table; one for a table replicated to every node), among the nodes that answer. On 18.16
 * an OPTIMIZE sent to another replica is forwarded to the leader and fails there with
 * "Unknown log entry type: 0" (measured); sent to the leader, it works.
 */
export async function replicationLeaders(nodes: readonly NodeClient[], database: string, table: string): Promise<NodeClient[]> {
  const leads = await Promise.all(
    nodes.map((node) =>
      node.client
        .query(sql`SELECT toUInt8(is_leader) AS leader FROM system.replicas WHERE database = ${database} AND table = ${table}`, leaderRow)
        .then(([row]) => row?.leader === 1, () => false),
    ),
  );
  return nodes.filter((_, i) => leads[i]);
}
