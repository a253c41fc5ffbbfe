/**
 * Reads one block range from a chain: every block with its transactions (in parallel, a
 * bounded number at a time; the transport batches them into JSON-RPC batches) and the
 * logs soulgraph keeps (one eth_getLogs over the range, filtered by topic). The result is
 * checked for consistency: each block's parent is the block before it, and every log
 * belongs to the block of that number that was read. A chain that moved during the read
 * throws ChainMovedError, and the range is read again.
 */
import { numberToHex, type PublicClient } from 'viem';
import { TOPICS, type RawLog } from './log-decoding.ts';
import { mapBounded } from './pool.ts';

export interface RawTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
}

export interface RawBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions: RawTransaction[];
}

export interface FetchedRange {
  blocks: RawBlock[];
  logs: RawLog[];
}

export class ChainMovedError extends Error {
  override name = 'ChainMovedError';
}

export const KEPT_TOPICS = [TOPICS.transfer, TOPICS.transferSingle, TOPICS.transferBatch, TOPICS.locked, TOPICS.attest];

export async function fetchBlock(client: PublicClient, number: number): Promise<RawBlock> {
  const block = (await client.request({
    method: 'eth_getBlockByNumber',
    params: [numberToHex(number), true],
  })) as unknown as RawBlock | null;
  if (!block) throw new ChainMovedError(`block ${number} is not available from the RPC (beyond its head?)`);
  if (block.transactions.some((t) => typeof t !== 'object' || t === null || typeof t.from !== 'string' || typeof t.hash !== 'string')) {
    throw new Error(`the RPC answered block ${number} without full transaction objects (asked with includeTransactions = true)`);
  }
  return block;
}

export async function fetchLogs(client: PublicClient, from: number, to: number): Promise<RawLog[]> {
  return (await client.request({
    method: 'eth_getLogs',
    params: [{ fromBlock: numberToHex(from), toBlock: numberToHex(to), topics: [KEPT_TOPICS] }],
  } as never)) as unknown as RawLog[];
}

export async function fetchRange(client: PublicClient, from: number, to: number, concurrency: number): Promise<FetchedRange> {
  const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const [blocks, logs] = await Promise.all([mapBounded(numbers, concurrency, (n) => fetchBlock(client, n)), fetchLogs(client, from, to)]);
  checkConsistent(blocks, logs);
  return { blocks, logs };
}

function checkConsistent(blocks: RawBlock[], logs: RawLog[]): void {
  const hashes = new Map<number, string>();
  blocks.forEach((b, i) => {
    hashes.set(Number(BigInt(b.number)), b.hash.toLowerCase());
    const previous = blocks[i - 1];
    if (previous && b.parentHash.toLowerCase() !== previous.hash.toLowerCase()) {
      throw new ChainMovedError(`block ${Number(BigInt(b.number))} does not follow the block read before it (reorg during the read)`);
    }
  });
  for (const log of logs) {
    const expected = hashes.get(Number(BigInt(log.blockNumber)));
    if (expected !== undefined && log.blockHash.toLowerCase() !== expected) {
      throw new ChainMovedError(`a log of block ${Number(BigInt(log.blockNumber))} belongs to another block hash (reorg during the read)`);
    }
  }
}
