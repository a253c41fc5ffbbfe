/**
 * Follow mode: from the chain's checkpoint up to its head minus the confirmation depth, one
 * range of `blocksPerJob` blocks at a time, the checkpoint written after each. Never above
 * head - confirmations. Before each range, the checkpoint block is compared with the chain:
 * when its hash changed (a reorg reached below the safe depth, or confirmations is 0), the
 * fork point is found, every row above it is deleted (reorg.ts), and ingestion resumes from
 * there, so the orphaned blocks' rows disappear and the replacement chain's appear.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config.ts';
import type { ChainJobResult } from '../../shared/queues.ts';
import { ingestRange, type RangeDeps } from './block-range.ts';
import { tryLockChain } from './chain-lock.ts';
import type { ChainSource } from './chain-source.ts';
import { forgetRangesFrom, readCheckpoint, writeCheckpoint, type Checkpoint } from './checkpoints.ts';
import { fetchBlock } from './fetch-range.ts';
import { deleteBlockSpan, findForkPoint, waitForMutations } from './reorg.ts';

export interface FollowOptions {
  /** Where to start without a checkpoint (default: the safe head). */
  fromBlock?: number;
  /** Stop after this long (the next follow job continues). */
  budgetMs?: number;
  jobId: string;
  /** After each range: for progress displays and the head-lag metric. */
  onRange?: (p: { to: number; head: number; safeHead: number; blocks: number }) => void;
}

export interface FollowDeps extends RangeDeps {
  redis: Redis;
  config: Config;
}

export async function followChain(deps: FollowDeps, source: ChainSource, options: FollowOptions): Promise<ChainJobResult> {
  const lock = await tryLockChain(deps.redis, deps.config.QUEUE_PREFIX, source.id);
  const idle = { chainId: source.id, from: 0, to: 0, blocks: 0, transactions: 0, logs: 0, skipped: true };
  if (!lock) return idle;
  try {
    return await followLocked(deps, source, options);
  } finally {
    await lock.release();
  }
}

async function followLocked(deps: FollowDeps, source: ChainSource, options: FollowOptions): Promise<ChainJobResult> {
  const { ch, logger } = deps;
  const started = Date.now();
  const budget = options.budgetMs ?? 60_000;
  const head = Number(await source.client.getBlockNumber({ cacheTime: 0 }));
  const safeHead = head - source.confirmations;
  let checkpoint = await readCheckpoint(ch, source.id);
  let rolledBack = 0;

  if (checkpoint) {
    const fork = await checkpointFork(deps, source, checkpoint);
    if (fork !== undefined) {
      rolledBack = checkpoint.blockNumber - fork.blockNumber;
      logger.warn({ chainId: source.id, from: fork.blockNumber + 1, to: checkpoint.blockNumber }, 'reorg: rolling back orphaned blocks');
      await deleteBlockSpan(ch, source.id, { from: fork.blockNumber + 1 });
      await forgetRangesFrom(ch, source.id, fork.blockNumber + 1);
      await waitForMutations(ch);
      checkpoint = fork.blockNumber >= 0 ? fork : undefined;
      await writeCheckpoint(ch, source.id, checkpoint, head);
    }
  }

  let next = checkpoint ? checkpoint.blockNumber + 1 : (options.fromBlock ?? Math.max(safeHead, 0));
  const first = next;
  const totals = { blocks: 0, transactions: 0, logs: 0 };
  while (next <= safeHead && Date.now() - started < budget) {
    const to = Math.min(next + source.blocksPerJob - 1, safeHead);
    const result = await ingestRange(deps, source, next, to, options.jobId);
    // A range marked done but written before a reorg was rolled back would have no hash: re-read it.
    const hash = result.lastHash || (await fetchBlock(source.client, to)).hash.toLowerCase();
    await writeCheckpoint(ch, source.id, { blockNumber: to, blockHash: hash }, head);
    totals.blocks += result.blocks;
    totals.transactions += result.transactions;
    totals.logs += result.logs;
    options.onRange?.({ to, head, safeHead, blocks: result.blocks });
    next = to + 1;
  }
  return { chainId: source.id, from: first, to: next - 1, ...totals, skipped: false, head, rolledBack };
}

/** The fork point when the checkpoint block is no longer on the chain; undefined when it still is. */
async function checkpointFork(deps: FollowDeps, source: ChainSource, checkpoint: Checkpoint): Promise<Checkpoint | undefined> {
  const onChain = await fetchBlock(source.client, checkpoint.blockNumber).catch(() => undefined);
  if (onChain && onChain.hash.toLowerCase() === checkpoint.blockHash) return undefined;
  const fork = await findForkPoint(deps.ch, source.client, source.id, checkpoint.blockNumber - 1);
  if (fork < 0) return { blockNumber: -1, blockHash: '' };
  return { blockNumber: fork, blockHash: (await fetchBlock(source.client, fork)).hash.toLowerCase() };
}
