/**
 * Every node of the client's cluster, as `remote()` addresses (host:port from
 * system.clusters), for what must be asked of each node rather than of a Distributed table:
 * replication lag, parts, mutations. Empty on one server.
 *
 * A node that cannot be reached is left out of such a question (a Distributed read cannot
 * pick it either, and it catches up from the replication log once it is back); any other
 * refusal, such as a node that does not know remote()'s `default` user, fails loudly: taken
 * for a dead node, it would make every wait return at once (docs/cluster.md).
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { sql } from './sql-literal.ts';

const nodeRow = z.object({ address: z.string(), port: z.coerce.number(), shard: z.coerce.number(), replica: z.coerce.number() });

export interface ClusterNode {
  /** host:port, as remote() takes it. */
  address: string;
  shard: number;
  replica: number;
}

/** The cluster's nodes in shard and replica order; none on one server. */
export async function clusterNodes(ch: ClickHouse): Promise<ClusterNode[]> {
  if (!ch.cluster) return [];
  const nodes = await ch.query(
    sql`SELECT host_address AS address, port, shard_num AS shard, replica_num AS replica
        FROM system.clusters WHERE cluster = ${ch.cluster} ORDER BY shard_num, replica_num`,
    nodeRow,
  );
  return nodes.map(({ address, port, shard, replica }) => ({ address: `${address}:${port}`, shard, replica }));
}

export async function clusterHosts(ch: ClickHouse): Promise<string[]> {
  return [...new Set((await clusterNodes(ch)).map((node) => node.address))];
}

/** ClickHouse's codes for a node it could not reach: socket timeout, network error, all connection tries failed. */
const UNREACHABLE_CODES = new Set(['209', '210', '279']);

/** What `asked` answers, or `otherwise` when the node it asked could not be reached. */
export async function unlessUnreachable<T>(asked: Promise<T>, otherwise: T): Promise<T> {
  try {
    return await asked;
  } catch (error) {
    if (isUnreachableNode(error)) return otherwise;
    throw error;
  }
}

function isUnreachableNode(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNREACHABLE_CODES.has(String(code)) || /\bCode: (209|210|279)\b/.test(error.message);
}
