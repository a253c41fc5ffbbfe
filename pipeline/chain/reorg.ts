/**
 * Removing what a chain no longer contains. Every chain-derived row carries its block
 * number, so rolling back is `ALTER TABLE ... DELETE WHERE chain_id = X AND block_number
 * >= N` on each table (sbt_mints, keyed by token, through sbt_mint_sources), then waiting
 * for the mutations to finish before anything is written again: a mutation applies to the
 * parts that exist when it starts, and rows written after it would otherwise be at risk
 * from none, but re-ingesting before it ends would race its rewrite of the same parts.
 *
 * On a cluster a sharded table's DELETE goes to its local tables ON CLUSTER (partsTarget:
 * a Distributed table has no parts), and the wait asks every node: each replica runs the
 * mutation on its own parts.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { everyNode, unlessUnreachable } from '../../shared/clickhouse/cluster-hosts.ts';
import { alterOnEveryShard } from '../../shared/clickhouse/cluster-schema.ts';
import { identifier, inList, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import type { PublicClient } from 'viem';
import { fetchBlock } from './fetch-range.ts';

/** Tables whose rows carry (chain_id, block_number). */
const BLOCK_TABLES = ['transactions', 'token_transfers', 'nft_transfers'] as const;

export interface BlockSpan {
  from: number;
  /** Inclusive; undefined = everything from `from` up. */
  to?: number;
}

const tokenKey = z.object({ contract: z.string(), token_id: z.string() });

/** Deletes every row of `chainId` within the span from the chain-derived tables, and waits until the deletes are done. */
export async function deleteBlockSpan(ch: ClickHouse, chainId: number, span: BlockSpan): Promise<void> {
  const within = (column: string): SqlFragment =>
    span.to === undefined
      ? sql`${identifier(column)} >= ${span.from}`
      : sql`${identifier(column)} BETWEEN ${span.from} AND ${span.to}`;

  // SBT mints are keyed by token, not block: find the ones this span minted first.
  const tokens = await ch.query(
    sql`SELECT contract, token_id FROM sbt_mint_sources FINAL WHERE chain_id = ${chainId} AND ${within('block_number')}`,
    tokenKey,
  );
  const mutations: [table: string, where: SqlFragment][] = BLOCK_TABLES.map((table) => [table, sql`chain_id = ${chainId} AND ${within('block_number')}`]);
  for (let i = 0; i < tokens.length; i += 500) {
    const keys = inList(tokens.slice(i, i + 500).map((t) => inList([t.contract, t.token_id])));
    for (const table of ['sbt_mints', 'sbt_mints_by_owner']) mutations.push([table, sql`chain_id = ${chainId} AND (contract, token_id) IN ${keys}`]);
  }
  mutations.push(['sbt_mint_sources', sql`chain_id = ${chainId} AND ${within('block_number')}`]);
  mutations.push(['chain_blocks', sql`chain_id = ${chainId} AND ${within('number')}`]);
  for (const [table, where] of mutations) await alterOnEveryShard(ch, table, (target) => sql`ALTER TABLE ${target} DELETE WHERE ${where}`);
  await waitForMutations(ch);
}

const pending = z.object({ pending: z.coerce.number() });

/** Waits until ClickHouse reports every mutation of this database done, on every node of a cluster. */
export async function waitForMutations(ch: ClickHouse, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A node that cannot be reached is left out: it runs the mutation from the replication log once it is back.
  const pendingOnEachNode = ch.cluster
    ? async () => Promise.all((await everyNode(ch)).map((node) => unlessUnreachable(pendingMutations(node.client, node.system('mutations')), 0)))
    : async () => [await pendingMutations(ch, sql`system.mutations`)];
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    const counts = await pendingOnEachNode();
    if (counts.every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`ClickHouse mutations still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function pendingMutations(ch: ClickHouse, source: SqlFragment): Promise<number> {
  const [row] = await ch.query(sql`SELECT count() AS pending FROM ${source} WHERE database = ${ch.database} AND is_done = 0`, pending);
  return row?.pending ?? 0;
}

const storedBlock = z.object({ number: z.coerce.number(), hash: z.string() });

/**
 * The highest block at or below `below` whose stored hash is still the chain's hash at that
 * number: everything above it was orphaned. Walks down at most `maxDepth` blocks.
 */
export async function findForkPoint(ch: ClickHouse, client: PublicClient, chainId: number, below: number, maxDepth = 1_000): Promise<number> {
  const stored = await ch.query(
    sql`SELECT number, hash FROM chain_blocks FINAL
        WHERE chain_id = ${chainId} AND number <= ${below} AND number + ${maxDepth} >= ${below}
        ORDER BY number DESC`,
    storedBlock,
  );
  for (const block of stored) {
    // A block above the chain's new head is orphaned too.
    const onChain = await fetchBlock(client, block.number).catch(() => undefined);
    if (onChain?.hash.toLowerCase() === block.hash) return block.number;
  }
  if (stored.length === 0 || below - maxDepth <= 0) return -1;
  throw new Error(`chain ${chainId}: no common block with the stored chain within ${maxDepth} blocks below ${below}; roll back by hand`);
}
