/**
 * Per-chain progress, kept in ClickHouse so that it survives restarts of every process:
 * the follow checkpoint (highest block ingested with everything below it), and the
 * status of each block range written (started / done), which makes a range job
 * idempotent: a done range is skipped, a started one (its job died half way) is deleted
 * before it is written again, so no row is missing or doubled.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';

export interface Checkpoint {
  blockNumber: number;
  blockHash: string;
}

/** Versions increase across processes: time in microseconds plus a per-process counter. */
let lastVersion = 0n;
function nextVersion(): string {
  const now = BigInt(Date.now()) * 1000n;
  lastVersion = now > lastVersion ? now : lastVersion + 1n;
  return lastVersion.toString();
}

const checkpointRow = z.object({ block_number: z.coerce.number(), block_hash: z.string() });

export async function readCheckpoint(ch: ClickHouse, chainId: number): Promise<Checkpoint | undefined> {
  const [row] = await ch.query(
    sql`SELECT block_number, block_hash FROM chain_checkpoints FINAL WHERE chain_id = ${chainId}`,
    checkpointRow,
  );
  return row && row.block_hash !== '' ? { blockNumber: row.block_number, blockHash: row.block_hash } : undefined;
}

export async function writeCheckpoint(ch: ClickHouse, chainId: number, checkpoint: Checkpoint | undefined, head: number): Promise<void> {
  await ch.insert('chain_checkpoints', [
    {
      chain_id: chainId,
      block_number: checkpoint?.blockNumber ?? 0,
      block_hash: checkpoint?.blockHash ?? '',
      head_number: head,
      version: nextVersion(),
      updated_at: Math.floor(Date.now() / 1000),
    },
  ]);
}

export type RangeStatus = 'started' | 'done';

const statusRow = z.object({ status: z.enum(['started', 'done']) });

export async function rangeStatus(ch: ClickHouse, chainId: number, from: number, to: number): Promise<RangeStatus | undefined> {
  const [row] = await ch.query(
    sql`SELECT status FROM chain_ranges FINAL WHERE chain_id = ${chainId} AND from_block = ${from} AND to_block = ${to}`,
    statusRow,
  );
  return row?.status;
}

export async function markRange(ch: ClickHouse, chainId: number, from: number, to: number, status: RangeStatus, jobId: string): Promise<void> {
  await ch.insert('chain_ranges', [
    { chain_id: chainId, from_block: from, to_block: to, status, job_id: jobId, updated_at: Math.floor(Date.now() / 1000), version: nextVersion() },
  ]);
}

/** Forgets the ranges that reach `from` or above (their rows were rolled back). */
export async function forgetRangesFrom(ch: ClickHouse, chainId: number, from: number): Promise<void> {
  await ch.command(sql`ALTER TABLE chain_ranges DELETE WHERE chain_id = ${chainId} AND to_block >= ${from}`);
}

const doneRow = z.object({ blocks: z.coerce.number(), highest: z.coerce.number() });

/** Blocks in done ranges within [from, to], and the highest done block there (backfill progress). */
export async function doneWithin(ch: ClickHouse, chainId: number, from: number, to: number): Promise<{ blocks: number; highest: number }> {
  const [row] = await ch.query(
    sql`SELECT sum(to_block - from_block + 1) AS blocks, max(to_block) AS highest
        FROM chain_ranges FINAL
        WHERE chain_id = ${chainId} AND status = 'done' AND from_block >= ${from} AND to_block <= ${to}`,
    doneRow,
  );
  return row ?? { blocks: 0, highest: 0 };
}
