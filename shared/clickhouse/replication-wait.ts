/**
 * Waiting until every live replica holds what was written, on a cluster. An insert through a
 * Distributed table returns once one replica of each shard has its rows; a read right after
 * it may be answered by the other replica, which has not fetched them yet (measured on the
 * local cluster: about half of 200 new rows missing). Whatever is published as complete (a
 * snapshot) should wait for this first. On one server it returns at once.
 *
 * Each node is asked directly or through `remote()` (cluster-hosts.ts, everyNode). A node
 * that cannot be reached is left out: a Distributed read cannot pick it either.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { askedDirectly, askedThroughRemote, clusterNodes, everyNode, macrosOf, unlessUnreachable, type NodeSource } from './cluster-hosts.ts';
import { partsTableName } from './cluster-schema.ts';
import { inList, sql, type SqlFragment } from './sql-literal.ts';

export interface ReplicationWait {
  timeoutMs?: number;
  pollMs?: number;
}

const replicaRow = z.object({
  path: z.string(),
  log_max_index: z.coerce.number(),
  log_pointer: z.coerce.number(),
  inserts_in_queue: z.coerce.number(),
});
export type ReplicaState = z.infer<typeof replicaRow>;

/** Resolves once every answering replica of these tables has fetched every insert logged so far; throws at the timeout. */
export async function awaitReplication(ch: ClickHouse, tables: readonly string[], options: ReplicationWait = {}): Promise<void> {
  if (!ch.cluster || tables.length === 0) return;
  const nodes = await everyNode(ch);
  const which = sql`table IN ${inList(tables.map((table) => partsTableName(ch, table)))}`;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let previous: ReplicaPoll | undefined;
  for (;;) {
    const poll = await Promise.all(nodes.map((node) => replicaStates(node, which)));
    if (settled(previous, poll)) return;
    previous = poll;
    if (Date.now() > deadline) {
      const behind = entriesBehind(poll).reduce((a: number, b) => a + (b ?? 0), 0);
      throw new Error(`replicas of ${tables.join(', ')} still ${behind} log entries behind after ${(options.timeoutMs ?? 120_000) / 1000} s`);
    }
    await sleep(options.pollMs ?? 200);
  }
}

/** One look at every node: its replicas of the tables waited for, undefined for a node that did not answer. */
export type ReplicaPoll = readonly (ReplicaState[] | undefined)[];

/**
 * Whether two polls in a row find every answering replica caught up, at the same log
 * positions. One poll is not enough: system.replicas reads a replica's fetch queue from
 * memory first and its log pointer from ZooKeeper after, and a replica pulls new log
 * entries by moving its pointer in ZooKeeper first and queueing the fetches in memory
 * after (ReplicatedMergeTreeQueue::pullLogsToQueue). A pull in either gap shows the
 * pointer past an entry whose part is neither fetched nor queued: 0 behind. Such a pull
 * has queued its fetches by the next poll, which then counts them, or has moved the
 * pointer again.
 */
export function settled(previous: ReplicaPoll | undefined, current: ReplicaPoll): boolean {
  if (!previous || entriesBehind(current).some((n) => (n ?? 0) > 0) || entriesBehind(previous).some((n) => (n ?? 0) > 0)) return false;
  return logPositions(previous) === logPositions(current);
}

function logPositions(poll: ReplicaPoll): string {
  return JSON.stringify(poll.map((replicas) => replicas?.map((r) => [r.path, r.log_pointer]).sort()));
}

export interface NodeLag {
  /** host:port: the node's HTTP address from CLICKHOUSE_NODE_URLS, else its TCP address in system.clusters. */
  address: string;
  /** Its shard and replica: the {shard} and {replica} macros of a node asked directly, else the numbers in system.clusters; '-' for a node that did not answer. */
  shard: string;
  replica: string;
  /** Log entries and queued fetches its replicas have still to apply, every table of the database; undefined when it cannot be reached. */
  behind: number | undefined;
}

/**
 * Every node of the cluster with how far behind its replicas are (`soulgraph status`). With
 * CLICKHOUSE_NODE_URLS, each node is asked directly and says its shard and replica by its
 * macros (system.clusters cannot tell nodes that share a host apart); otherwise each
 * address in system.clusters is asked through remote().
 */
export async function replicationLagByNode(ch: ClickHouse): Promise<NodeLag[]> {
  const named =
    ch.nodes.length > 0
      ? await Promise.all(ch.nodes.map(async (node) => ({ address: node.address, source: askedDirectly(node), ...((await macrosOf(node)) ?? { shard: '-', replica: '-' }) })))
      : (await clusterNodes(ch)).map((node) => ({ address: node.address, source: askedThroughRemote(ch, node.address), shard: String(node.shard), replica: String(node.replica) }));
  const behind = entriesBehind(await Promise.all(named.map((node) => replicaStates(node.source, sql`1`))));
  return named.map(({ source: _, ...node }, i) => ({ ...node, behind: behind[i] }));
}

/** This node's replicas of the tables `which` selects; undefined when the node cannot be reached. */
async function replicaStates(node: NodeSource, which: SqlFragment): Promise<ReplicaState[] | undefined> {
  return unlessUnreachable(
    node.client.query(
      sql`SELECT zookeeper_path AS path, log_max_index, log_pointer, inserts_in_queue
          FROM ${node.system('replicas')}
          WHERE database = ${node.client.database} AND ${which}`,
      replicaRow,
    ),
    undefined,
  );
}

/**
 * Per node, the log entries its replicas have not copied yet plus the fetches they have
 * queued (undefined for a node that did not answer). A replicated table's log holds
 * log_max_index + 1 entries, but an empty log shows log_max_index 0 too (measured on 18.16:
 * counted as one entry, a wait on a table never written to, such as an empty profile_tags,
 * never ended). So a log counts as empty only while none of its replicas, on any node, has
 * copied an entry; a replica that has not copied the first entry a peer has is behind.
 */
export function entriesBehind(perNode: readonly (ReplicaState[] | undefined)[]): (number | undefined)[] {
  const logLength = new Map<string, number>();
  for (const replica of perNode.flat()) {
    if (!replica) continue;
    const written = replica.log_pointer > 0 || replica.log_max_index > 0;
    logLength.set(replica.path, Math.max(logLength.get(replica.path) ?? 0, written ? replica.log_max_index + 1 : 0, replica.log_pointer));
  }
  return perNode.map((replicas) =>
    replicas?.reduce((sum, r) => sum + r.inserts_in_queue + Math.max((logLength.get(r.path) ?? 0) - r.log_pointer, 0), 0),
  );
}
