/**
 * Every node of the client's cluster, for what must be asked of each node rather than of a
 * Distributed table: replication lag, parts, mutations. Empty on one server. Each node is
 * asked directly over CLICKHOUSE_NODE_URLS, with the service's own user and password, when
 * they are set; otherwise the connected node asks each address in system.clusters through
 * `remote()`, which connects as the `default` user without a password (docs/cluster.md).
 *
 * A node that cannot be reached is left out of such a question (a Distributed read cannot
 * pick it either, and it catches up from the replication log once it is back); any other
 * refusal, such as a node that does not know remote()'s `default` user, fails loudly: taken
 * for a dead node, it would make every wait return at once (docs/cluster.md).
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { SqlFragment, sql } from './sql-literal.ts';

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

async function clusterHosts(ch: ClickHouse): Promise<string[]> {
  return [...new Set((await clusterNodes(ch)).map((node) => node.address))];
}

/** A node to ask about itself: the client that asks, and how it names a system table of that node. */
export interface NodeSource {
  client: ClickHouse;
  system(table: 'replicas' | 'parts' | 'mutations'): SqlFragment;
}

/** Every node to ask, directly or through remote() (see the top of this file). */
export async function everyNode(ch: ClickHouse): Promise<NodeSource[]> {
  if (ch.nodes.length > 0) return ch.nodes.map(askedDirectly);
  return (await clusterHosts(ch)).map((address) => askedThroughRemote(ch, address));
}

/** The node of this client, asking about itself. */
export const askedDirectly = (client: ClickHouse): NodeSource => ({ client, system: (table) => new SqlFragment(`system.${table}`) });

/** The node at `address` (host:port), asked by `ch`'s node through remote(). */
export const askedThroughRemote = (ch: ClickHouse, address: string): NodeSource => ({
  client: ch,
  system: (table) => sql`remote(${address}, system, ${new SqlFragment(table)})`,
});

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

/** What a client asking a node directly meets when the node is down. */
const CONNECTION_ERRORS = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT)\b|socket hang up/;

function isUnreachableNode(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNREACHABLE_CODES.has(String(code)) || /\bCode: (209|210|279)\b/.test(error.message) || CONNECTION_ERRORS.test(`${String(code)} ${error.message}`);
}
