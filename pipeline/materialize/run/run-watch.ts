/**
 * The producer side of a run: enqueue it, then follow it (load, fit, then bucket by bucket)
 * until the snapshot is ready or failed (what `soulgraph materialize` shows).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Job, Queue } from 'bullmq';
import type { Config } from '../../../shared/config.ts';
import { MATERIALIZE_QUEUE, MATERIALIZE_STEPS_QUEUE, type MaterializeRunJob } from '../../../shared/queues.ts';
import { redisConnection } from '../../../shared/redis.ts';
import { bucketJobId, type RunProgress, type RunResult } from './materialize-run.ts';
import type { BucketResult } from './materialize-steps.ts';

export type BucketState = 'waiting' | 'running' | 'done' | 'failed';

export interface RunView {
  state: 'queued' | 'load' | 'fit' | 'buckets' | 'done' | 'failed';
  snapshotId?: number;
  buckets: { bucket: number; state: BucketState; result?: BucketResult; seconds?: number }[];
  result?: RunResult;
  error?: string;
}

/** How many of the run's buckets have finished, for progress lines and bars. */
export function bucketsDone(view: RunView): number {
  return view.buckets.filter((b) => b.state === 'done').length;
}

/** Runs finished long ago are not kept forever, but weeks of them are. A run is never retried: the next night's is. */
export const runJobOptions = { attempts: 1, removeOnComplete: { age: 7 * 24 * 3600, count: 100 }, removeOnFail: { age: 30 * 24 * 3600, count: 100 } };

export async function enqueueRun(config: Config, trigger: string): Promise<string> {
  const queue = new Queue(MATERIALIZE_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    const job = await queue.add('run', { trigger } satisfies MaterializeRunJob, runJobOptions);
    return job.id!;
  } finally {
    await queue.close();
  }
}

/** Calls `onView` every `pollMs` until the run has ended; resolves with the last view. */
export async function watchRun(config: Config, runJobId: string, onView: (view: RunView) => void, pollMs = 500): Promise<RunView> {
  const connection = redisConnection(config, 'producer');
  const runs = new Queue(MATERIALIZE_QUEUE, { connection, prefix: config.QUEUE_PREFIX });
  const steps = new Queue(MATERIALIZE_STEPS_QUEUE, { connection, prefix: config.QUEUE_PREFIX });
  try {
    for (;;) {
      const view = await viewOf(runs, steps, runJobId);
      onView(view);
      if (view.state === 'done' || view.state === 'failed') return view;
      await sleep(pollMs);
    }
  } finally {
    await Promise.all([runs.close(), steps.close()]);
  }
}

async function viewOf(runs: Queue, steps: Queue, runJobId: string): Promise<RunView> {
  // The state first, then the job: read the other way round, a run finishing in between looks done without its result.
  const state = await runs.getJobState(runJobId);
  const run = await Job.fromId(runs, runJobId);
  if (!run || state === 'unknown') return { state: 'failed', buckets: [], error: `run job ${runJobId} not found` };
  const progress = (typeof run.progress === 'object' ? run.progress : {}) as Partial<RunProgress>;
  const snapshotId = (run.data as MaterializeRunJob).snapshotId ?? progress.snapshotId;
  const buckets = snapshotId && progress.buckets ? await bucketStates(steps, snapshotId, progress.buckets) : [];
  if (state === 'completed') return { state: 'done', snapshotId, buckets, result: run.returnvalue as RunResult };
  if (state === 'failed') return { state: 'failed', snapshotId, buckets, error: run.failedReason };
  if (!progress.phase) return { state: 'queued', buckets };
  return { state: progress.phase, snapshotId, buckets };
}

async function bucketStates(steps: Queue, snapshotId: number, count: number): Promise<RunView['buckets']> {
  return Promise.all(
    Array.from({ length: count }, async (_, bucket) => {
      const state = await steps.getJobState(bucketJobId(snapshotId, bucket));
      const job = await Job.fromId(steps, bucketJobId(snapshotId, bucket));
      if (!job) return { bucket, state: 'waiting' as const };
      const seconds = job.processedOn ? ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000 : undefined;
      if (state === 'completed') return { bucket, state: 'done' as const, result: job.returnvalue as BucketResult, seconds };
      if (state === 'failed') return { bucket, state: 'failed' as const, seconds };
      if (state === 'active') return { bucket, state: 'running' as const, seconds };
      return { bucket, state: 'waiting' as const };
    }),
  );
}
