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
import { setTimeout as sleep } from 'node:timers/promises';
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

const macrosRow = z.object({ shard: z.string(), replica: z.string() });

/** The {shard} and {replica} macros of the node `ch` talks to; undefined when it cannot be reached. */
export async function macrosOf(ch: ClickHouse): Promise<{ shard: string; replica: string } | undefined> {
  const asked = ch.query(
    sql`SELECT anyIf(substitution, macro = 'shard') AS shard, anyIf(substitution, macro = 'replica') AS replica FROM system.macros`,
    macrosRow,
  );
  return unlessUnreachable(asked.then(([row]) => row), undefined);
}

/**
 * The node clients (CLICKHOUSE_NODE_URLS) that answer, grouped by their {shard} macro, in
 * the order they were given. Throws when a shard has none (system.clusters, asked of one that
 * answers, counts the shards): what must reach every shard cannot be done now.
 */
export async function liveNodesByShard(ch: ClickHouse): Promise<ClickHouse[][]> {
  const macros = await Promise.all(ch.nodes.map(macrosOf));
  const byShard = new Map<string, ClickHouse[]>();
  ch.nodes.forEach((node, i) => {
    const shard = macros[i]?.shard;
    if (shard !== undefined) byShard.set(shard, [...(byShard.get(shard) ?? []), node]);
  });
  const asked = [...byShard.values()][0]?.[0];
  if (!asked) throw new Error(`no ClickHouse node of CLICKHOUSE_NODE_URLS answers (${ch.nodes.map((n) => n.address).join(', ')})`);
  const shards = new Set((await clusterNodes(asked)).map((n) => n.shard)).size;
  if (byShard.size < shards) {
    throw new Error(`only ${byShard.size} of cluster ${ch.cluster}'s ${shards} shards have a node in CLICKHOUSE_NODE_URLS that answers (shards ${[...byShard.keys()].join(', ')})`);
  }
  return [...byShard.values()];
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

/**
 * `ask` of the first of `nodes` that can run it. A node that is up can fail as a dead one
 * does when the statement needs another node that is down: 18.16 sends a partition drop on
 * to the replication leader, and a dead leader leads until ZooKeeper ends its session
 * (session_timeout_ms) and another replica takes over; while it does, a replica can answer
 * that the leader changed under the statement (code 292). So while none can, it tries them
 * again every second for `retryForMs`, then throws with what each met.
 */
export async function onFirstThatAnswers(nodes: readonly ClickHouse[], ask: (node: ClickHouse) => Promise<void>, retryForMs = 0): Promise<void> {
  const deadline = Date.now() + retryForMs;
  for (;;) {
    const met: string[] = [];
    for (const node of nodes) {
      try {
        return await ask(node);
      } catch (error) {
        if (!isUnreachableNode(error) && !isLeaderChange(error)) throw error;
        met.push(`${node.address}: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    if (Date.now() >= deadline) throw new Error(`no node of a shard could run it${retryForMs > 0 ? ` in ${retryForMs / 1000} s` : ''} (${met.join('; ')})`);
    await sleep(1000);
  }
}

/** ClickHouse's LEADERSHIP_CHANGED: the shard's replication leader changed while the statement was on its way to it. */
const LEADER_CHANGED_CODES = new Set(['292']);
/** ClickHouse's KEEPER_EXCEPTION: a ZooKeeper answer, here only the one about the leader election below. */
const KEEPER_CODES = new Set(['999']);

/**
 * The shard's replication leader is changing: ClickHouse said so (LEADERSHIP_CHANGED), or it
 * looked the leader up in ZooKeeper just as the dead leader's election node went away (18.16:
 * "Coordination::Exception: Can't get data for node …/leader_election/leader_election-…:
 * node doesn't exist"; seen once in the local cluster's failover test). Any other ZooKeeper
 * error fails loudly.
 */
function isLeaderChange(error: unknown): boolean {
  if (hasClickHouseCode(error, LEADER_CHANGED_CODES)) return true;
  return hasClickHouseCode(error, KEEPER_CODES) && error instanceof Error && /\/leader_election\/\S*: node doesn't exist/.test(error.message);
}

/** What a client asking a node directly meets when the node is down. */
const CONNECTION_ERRORS = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT)\b|socket hang up/;

function isUnreachableNode(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return hasClickHouseCode(error, UNREACHABLE_CODES) || CONNECTION_ERRORS.test(`${String(code)} ${error.message}`);
}

/** Whether ClickHouse answered one of `codes`: as the client's error code, or as "Code: N" in a message passed on from another node. */
function hasClickHouseCode(error: unknown, codes: ReadonlySet<string>): boolean {
  if (!(error instanceof Error)) return false;
  const inMessage = [...error.message.matchAll(/\bCode: (\d+)\b/g)].map((m) => m[1]!);
  return [String((error as { code?: unknown }).code), ...inMessage].some((code) => codes.has(code));
}
