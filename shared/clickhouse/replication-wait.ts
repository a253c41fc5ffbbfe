/**
 * Waiting until every live replica holds what was written, on a cluster. An insert through a
 * Distributed table returns once one replica of each shard has its rows; a read right after
 * it may be answered by the other replica, which has not fetched them yet (measured on the
 * local cluster: about half of 200 new rows missing). Whatever is published as complete (a
 * snapshot) should wait for this first. On one server it returns at once.
 *
 * Each node is asked through `remote()` over the cluster's own addresses (system.clusters),
 * so the caller needs only its one connection. A node that cannot be reached is left out: a
 * Distributed read cannot pick it either.
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { clusterHosts, clusterNodes, unlessUnreachable, type ClusterNode } from './cluster-hosts.ts';
import { partsTableName } from './cluster-schema.ts';
import { inList, sql, type SqlFragment } from './sql-literal.ts';

export interface ReplicationWait {
  timeoutMs?: number;
  pollMs?: number;
}

const behindRow = z.object({ behind: z.coerce.number() });

/** Resolves once every answering replica of these tables has fetched every insert logged so far; throws at the timeout. */
export async function awaitReplication(ch: ClickHouse, tables: readonly string[], options: ReplicationWait = {}): Promise<void> {
  if (!ch.cluster || tables.length === 0) return;
  const hosts = await clusterHosts(ch);
  const locals = tables.map((table) => partsTableName(ch, table));
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const behind = await Promise.all(hosts.map((host) => replicasBehind(ch, host, locals)));
    if (behind.every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`replicas of ${tables.join(', ')} still ${behind.reduce((a, b) => a + b, 0)} log entries behind after ${(options.timeoutMs ?? 120_000) / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}

/** Log entries and queued fetches this node's replicas of the tables have still to apply; 0 when it cannot be reached. */
async function replicasBehind(ch: ClickHouse, address: string, tables: readonly string[]): Promise<number> {
  return (await unlessUnreachable(logEntriesBehind(ch, address, sql`table IN ${inList(tables)}`), undefined)) ?? 0;
}

export interface NodeLag extends ClusterNode {
  /** Log entries and queued fetches its replicas have still to apply, every table of the database; undefined when it cannot be reached. */
  behind: number | undefined;
}

/** Every node of the cluster with how far behind its replicas are (`soulgraph status`). */
export async function replicationLagByNode(ch: ClickHouse): Promise<NodeLag[]> {
  return Promise.all(
    (await clusterNodes(ch)).map(async (node) => ({ ...node, behind: await unlessUnreachable(logEntriesBehind(ch, node.address, sql`1`), undefined) })),
  );
}

/**
 * A replica is behind by the log entries it has not copied (log_pointer is the next one it
 * will copy) plus the fetches queued. A table whose log is empty shows log_max_index 0 and
 * log_pointer 0, as does one whose first entry this replica has not copied yet: taken as
 * not behind (measured on 18.16; counted as one entry, a wait on a table never written to,
 * such as an empty profile_tags, never ended). So a wait right after a table's very first
 * insert can return before every replica has it.
 */
async function logEntriesBehind(ch: ClickHouse, address: string, tables: SqlFragment): Promise<number> {
  const [row] = await ch.query(
    sql`SELECT toUInt64(sum(inserts_in_queue + if(log_max_index = 0 AND log_pointer = 0, 0, greatest(toInt64(log_max_index) + 1 - toInt64(log_pointer), 0)))) AS behind
        FROM remote(${address}, system, replicas)
        WHERE database = ${ch.database} AND ${tables}`,
    behindRow,
  );
  return row?.behind ?? 0;
}
