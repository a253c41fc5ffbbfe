/**
 * The chain worker: runs `range` jobs (backfill) and `follow` jobs (the scheduler's
 * chain-follow entries) of the chain queue, for the chains configured in CHAINS. Rows are
 * in ClickHouse before a job completes; a job that dies half way is taken over after its
 * lock expires, and its range is rewritten whole (block-range.ts).
 */
import { UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { CHAIN_QUEUE, chainJobSchema, type ChainJobResult } from '../../shared/queues.ts';
import { chainHeadLag } from '../metrics/chain-head-lag.ts';
import type { PipelineMetrics } from '../metrics/pipeline-metrics.ts';
import { createChainCaches, ingestRange } from './block-range.ts';
import { ChainMismatchError, chainSources, type ChainSource } from './chain-source.ts';
import { followChain } from './follow.ts';

export interface ChainWorkerDeps {
  config: Config;
  clickhouse: ClickHouse;
  connection: ConnectionOptions;
  logger: Logger;
  metrics?: PipelineMetrics;
}

export interface ChainWorker {
  worker: Worker<unknown, ChainJobResult>;
  close(): Promise<void>;
}

export function createChainWorker(deps: ChainWorkerDeps): ChainWorker {
  const log = deps.logger.child({ queue: CHAIN_QUEUE });
  const sources = new Map<number, ChainSource>(chainSources(deps.config).map((s) => [s.id, s]));
  const caches = createChainCaches(deps.clickhouse, deps.config, log);
  const redis = new Redis(deps.connection as never);
  const rangeDeps = { ch: deps.clickhouse, config: deps.config, logger: log, caches };
  const lag = deps.metrics ? chainHeadLag(deps.metrics.registry) : undefined;

  const worker = new Worker<unknown, ChainJobResult>(
    CHAIN_QUEUE,
    async (job) => {
      const payload = chainJobSchema.safeParse(job.data);
      if (!payload.success) throw new UnrecoverableError(`invalid ${CHAIN_QUEUE} payload: ${z.prettifyError(payload.error)}`);
      const source = sources.get(payload.data.chainId);
      if (!source) throw new UnrecoverableError(`chain ${payload.data.chainId} is not configured in CHAINS on this worker`);
      const jobId = job.id ?? 'unknown';
      if (payload.data.task === 'range') {
        const r = await ingestRange(rangeDeps, source, payload.data.fromBlock, payload.data.toBlock, jobId).catch((error: unknown) => {
          // A misconfigured RPC fails the same way on every attempt.
          throw error instanceof ChainMismatchError ? new UnrecoverableError(error.message) : error;
        });
        log.debug({ jobId, ...r }, 'block range ingested');
        deps.metrics?.rowsIngested.inc({ kind: 'transactions', outcome: 'accepted' }, r.transactions);
        deps.metrics?.rowsIngested.inc({ kind: 'nft-transfers', outcome: 'accepted' }, r.nftTransfers);
        deps.metrics?.rowsIngested.inc({ kind: 'token-transfers', outcome: 'accepted' }, r.tokenTransfers);
        deps.metrics?.rowsIngested.inc({ kind: 'sbt-mints', outcome: 'accepted' }, r.sbtMints);
        return { chainId: r.chainId, from: r.from, to: r.to, blocks: r.blocks, transactions: r.transactions, logs: r.logs, skipped: r.skipped };
      }
      const result = await followChain({ ...rangeDeps, redis }, source, {
        jobId,
        ...(payload.data.fromBlock !== undefined ? { fromBlock: payload.data.fromBlock } : {}),
        budgetMs: 60_000,
        onRange: (p) => lag?.set(source.id, p.head - p.to),
      });
      if (result.rolledBack) log.warn({ jobId, chainId: source.id, rolledBack: result.rolledBack }, 'reorg rolled back');
      return result;
    },
    {
      connection: deps.connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.CHAIN_WORKER_CONCURRENCY,
      lockDuration: deps.config.INGEST_LOCK_MS,
      stalledInterval: deps.config.INGEST_LOCK_MS,
      maxStalledCount: 3,
      name: 'soulgraph-chain',
    },
  );
  return {
    worker,
    async close() {
      await worker.close();
      redis.disconnect();
    },
  };
}
