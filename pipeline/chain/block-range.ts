/**
 * The work of one block-range job: read the range from the chain, write its rows, mark it
 * done. Order matters for restarts: the range is marked started before the first row and
 * done after the last (its blocks' hashes included), so a job that died half way is
 * recognised by the next attempt, which deletes what the dead one wrote and starts again.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { sbtMintRow } from '../../shared/records/sbts.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { verifyChainId, type ChainSource } from './chain-source.ts';
import { markRange, rangeStatus } from './checkpoints.ts';
import { CollectionNames } from './collections.ts';
import { ContractMarks } from './contract-marks.ts';
import { fetchRange, type RawBlock } from './fetch-range.ts';
import { amountUInt64, decodeLog, type ChainEvent } from './log-decoding.ts';
import { deleteBlockSpan } from './reorg.ts';
import { findSbtMints, SbtMetadata, type ResolvedSbtMint } from './sbt-mints.ts';

export interface RangeResult {
  chainId: number;
  from: number;
  to: number;
  /** True when the range was already done and nothing was written. */
  skipped: boolean;
  blocks: number;
  transactions: number;
  logs: number;
  tokenTransfers: number;
  nftTransfers: number;
  sbtMints: number;
  contractsMarked: number;
  /** Hash of block `to` as ingested. */
  lastHash: string;
}

/** Caches shared by the jobs of one worker process. */
export interface ChainCaches {
  contracts: ContractMarks;
  collections: CollectionNames;
  sbt: SbtMetadata;
}

export function createChainCaches(ch: ClickHouse, config: Config, logger: Logger): ChainCaches {
  return { contracts: new ContractMarks(ch, logger), collections: new CollectionNames(ch), sbt: new SbtMetadata(config, logger) };
}

export interface RangeDeps {
  ch: ClickHouse;
  config: Config;
  logger: Logger;
  caches: ChainCaches;
}

export async function ingestRange(deps: RangeDeps, source: ChainSource, from: number, to: number, jobId: string): Promise<RangeResult> {
  const { ch, config } = deps;
  const chainId = source.id;
  await verifyChainId(source);
  const status = await rangeStatus(ch, chainId, from, to);
  const empty = { chainId, from, to, blocks: 0, transactions: 0, logs: 0, tokenTransfers: 0, nftTransfers: 0, sbtMints: 0, contractsMarked: 0 };
  if (status === 'done') return { ...empty, skipped: true, lastHash: await storedHash(ch, chainId, to) };
  if (status === 'started') {
    deps.logger.warn({ chainId, from, to, jobId }, 'range was left half written by an earlier attempt: deleting its rows before writing it again');
    await deleteBlockSpan(ch, chainId, { from, to });
  }

  const fetched = await fetchRange(source.client, from, to, config.CHAIN_BLOCK_FETCH_CONCURRENCY);
  await markRange(ch, chainId, from, to, 'started', jobId);

  const now = Math.floor(Date.now() / 1000);
  const times = new Map(fetched.blocks.map((b) => [Number(BigInt(b.number)), Number(BigInt(b.timestamp))]));
  const timeOf = (block: number) => times.get(block) ?? 0;
  const events = fetched.logs.map(decodeLog).filter((e): e is ChainEvent => e !== undefined);
  const nftRows = events.flatMap((e) => nftTransferRows(chainId, e, timeOf(e.blockNumber), now));
  const concurrency = config.CHAIN_BLOCK_FETCH_CONCURRENCY;
  const recipients = fetched.blocks.flatMap((b) => b.transactions.map((t) => (t.to ?? '').toLowerCase()));

  // Independent writes run side by side; only the blocks and the done mark wait for all of them.
  const [transactions, tokenTransfers, nftTransfers, , contractsMarked, sbtMints] = await allSettledOrThrow([
    ch.insert('transactions', transactionRows(chainId, fetched.blocks, now)),
    ch.insert(
      'token_transfers',
      events.flatMap((e) =>
        e.type === 'erc20'
          ? [{ chain_id: chainId, contract: e.contract, from_address: e.from, to_address: e.to, value: e.value, tx_hash: e.txHash, log_index: e.logIndex, block_number: e.blockNumber, block_time: timeOf(e.blockNumber), ingested_at: now }]
          : [],
      ),
    ),
    ch.insert('nft_transfers', nftRows),
    deps.caches.collections.describe(source.client, chainId, nftRows.map((r) => r.contract), concurrency),
    deps.caches.contracts.mark(source.client, chainId, recipients, concurrency),
    (async () => {
      const mints = await deps.caches.sbt.resolve(source.client, chainId, await findSbtMints(source.client, events), concurrency);
      await ch.insert('sbt_mint_sources', mints.map((m) => sbtSourceRow(chainId, m, now)));
      return ch.insert('sbt_mints', mints.map((m) => ({ ...sbtMintRow({ ...m, chainId, mintedAt: timeOf(m.blockNumber) }), ingested_at: now })));
    })(),
  ]);

  await ch.insert(
    'chain_blocks',
    fetched.blocks.map((b) => ({
      chain_id: chainId,
      number: Number(BigInt(b.number)),
      hash: b.hash.toLowerCase(),
      parent_hash: b.parentHash.toLowerCase(),
      time: Number(BigInt(b.timestamp)),
      tx_count: b.transactions.length,
      ingested_at: now,
    })),
  );
  await markRange(ch, chainId, from, to, 'done', jobId);
  return {
    ...empty,
    skipped: false,
    blocks: fetched.blocks.length,
    transactions,
    logs: fetched.logs.length,
    tokenTransfers,
    nftTransfers,
    sbtMints,
    contractsMarked,
    lastHash: fetched.blocks.at(-1)!.hash.toLowerCase(),
  };
}

/**
 * Like Promise.all, but fails only once every write has settled: a retry deletes what this
 * attempt wrote, so no write of it may still be in flight then.
 */
async function allSettledOrThrow<T extends readonly unknown[]>(work: [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

function* transactionRows(chainId: number, blocks: RawBlock[], now: number) {
  for (const b of blocks) {
    const number = Number(BigInt(b.number));
    const time = Number(BigInt(b.timestamp));
    for (const t of b.transactions) {
      yield {
        chain_id: chainId,
        hash: t.hash.toLowerCase(),
        block_number: number,
        block_time: time,
        from_address: t.from.toLowerCase(),
        to_address: (t.to ?? '').toLowerCase(),
        value: BigInt(t.value).toString(),
        ingested_at: now,
      };
    }
  }
}

function nftTransferRows(chainId: number, e: ChainEvent, time: number, now: number) {
  const common = { chain_id: chainId, contract: e.contract, block_number: e.blockNumber, block_time: time, log_index: e.logIndex, tx_hash: e.txHash, ingested_at: now };
  if (e.type === 'erc721') return [{ ...common, token_id: e.tokenId, from_address: e.from, to_address: e.to, amount: '1', standard: 'ERC-721' }];
  if (e.type === 'erc1155') {
    return e.tokens.map((t) => ({ ...common, token_id: t.tokenId, from_address: e.from, to_address: e.to, amount: amountUInt64(t.amount), standard: 'ERC-1155' }));
  }
  return [];
}

function sbtSourceRow(chainId: number, m: ResolvedSbtMint, now: number) {
  return {
    chain_id: chainId,
    contract: m.contract,
    token_id: m.tokenId,
    block_number: m.blockNumber,
    tx_hash: m.txHash,
    log_index: m.logIndex,
    evidence: m.evidence,
    token_uri: m.tokenUri,
    metadata_status: m.metadataStatus,
    metadata_reason: m.metadataReason,
    ingested_at: now,
  };
}

async function storedHash(ch: ClickHouse, chainId: number, number: number): Promise<string> {
  const [row] = await ch.query(sql`SELECT hash FROM chain_blocks FINAL WHERE chain_id = ${chainId} AND number = ${number}`, z.object({ hash: z.string() }));
  return row?.hash ?? '';
}
