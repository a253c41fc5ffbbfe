/**
 * A backfill: splits [from, to] into range jobs of the chain's blocksPerJob, each with a
 * deterministic job id (re-running the same backfill adds nothing twice; a range already
 * done is skipped by its job), and follows them to the end. Progress comes from the jobs'
 * states, so jobs finished before this process looked are counted too.
 */
import { Queue } from 'bullmq';
import type { Config } from '../../shared/config.ts';
import { CHAIN_QUEUE, chainJobOptions, chainJobResultSchema, chainRangeJobId, type ChainJob } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import type { ChainSource } from './chain-source.ts';

export interface BackfillProgress {
  blocksDone: number;
  totalBlocks: number;
  highestDone: number;
  head: number;
  transactions: number;
  logs: number;
}

export interface BackfillSummary extends BackfillProgress {
  jobs: number;
  failed: { jobId: string; reason: string }[];
  elapsedMs: number;
}

export function splitRange(from: number, to: number, size: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let start = from; start <= to; start += size) ranges.push([start, Math.min(start + size - 1, to)]);
  return ranges;
}

export async function runBackfill(
  config: Config,
  source: ChainSource,
  from: number,
  to: number,
  onProgress?: (p: BackfillProgress) => void,
  pollMs = 250,
): Promise<BackfillSummary> {
  const started = Date.now();
  const queue = new Queue(CHAIN_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX, defaultJobOptions: chainJobOptions(config) });
  try {
    const ranges = splitRange(from, to, source.blocksPerJob);
    for (let i = 0; i < ranges.length; i += 500) {
      await queue.addBulk(
        ranges.slice(i, i + 500).map(([a, b]) => ({
          name: 'range',
          data: { task: 'range', chainId: source.id, fromBlock: a, toBlock: b } satisfies ChainJob,
          opts: { jobId: chainRangeJobId(source.id, a, b) },
        })),
      );
    }
    const outstanding = new Map(ranges.map(([a, b]) => [chainRangeJobId(source.id, a, b), b - a + 1]));
    const progress: BackfillProgress = { blocksDone: 0, totalBlocks: to - from + 1, highestDone: from - 1, head: 0, transactions: 0, logs: 0 };
    const failed: BackfillSummary['failed'] = [];
    let lastHead = 0;
    while (outstanding.size > 0) {
      if (Date.now() - lastHead > 2_000) {
        progress.head = Number(await source.client.getBlockNumber({ cacheTime: 0 }).catch(() => BigInt(progress.head)));
        lastHead = Date.now();
      }
      // Jobs run roughly in order: look at the oldest few outstanding ones.
      for (const [jobId, blocks] of [...outstanding].slice(0, 64)) {
        // The state first, then the job: a job read before its state would lack a result that arrived in between.
        const state = await queue.getJobState(jobId);
        const job = state === 'completed' || state === 'failed' ? await queue.getJob(jobId) : undefined;
        if (state === 'completed' || state === 'unknown') {
          const result = job ? chainJobResultSchema.safeParse(job.returnvalue) : undefined;
          progress.blocksDone += blocks;
          if (result?.success) {
            progress.transactions += result.data.transactions;
            progress.logs += result.data.logs;
            progress.highestDone = Math.max(progress.highestDone, result.data.to);
          }
          outstanding.delete(jobId);
        } else if (state === 'failed') {
          failed.push({ jobId, reason: job?.failedReason ?? 'failed' });
          outstanding.delete(jobId);
        }
      }
      onProgress?.({ ...progress });
      if (outstanding.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return { ...progress, jobs: ranges.length, failed, elapsedMs: Date.now() - started };
  } finally {
    await queue.close();
  }
}

export async function chainWorkerCount(config: Config): Promise<number> {
  const queue = new Queue(CHAIN_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    return await queue.getWorkersCount();
  } finally {
    await queue.close();
  }
}
