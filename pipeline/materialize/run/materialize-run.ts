/**
 * A nightly run, as the `run` job on the materialize queue (one at a time): take a snapshot
 * id, load the world (load/), fit the ranking model to it (fit/) and keep the fit with the
 * snapshot, then add the flow of bucket jobs under a `complete` parent and wait for that
 * parent. The run job ends when the snapshot is ready or failed, so two runs never overlap.
 *
 * A run whose worker died resumes: the snapshot id is kept in the job's data, and a flow that
 * was already added is waited for, not added twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowProducer, Job, Queue, UnrecoverableError, type FlowJob } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import type { Config } from '../../../shared/config.ts';
import type { Logger } from '../../../shared/logger.ts';
import {
  MATERIALIZE_STEPS_QUEUE,
  materializeRunJobSchema,
  type MaterializeRunJob,
  type MaterializeStepJob,
} from '../../../shared/queues.ts';
import { engineSettings } from '../engine-settings.ts';
import { fitModel } from '../fit/model-fit.ts';
import { storeRankingModel } from '../publish/ranking-models.ts';
import { beginSnapshot, setSnapshotStatus } from '../publish/snapshots.ts';
import { FEATURES } from '../rank/features.ts';
import type { RankingModel } from '../rank/ranking-model.ts';
import type { WorldCache } from './loaded-world.ts';

export interface RunProgress {
  snapshotId: number;
  phase: 'load' | 'fit' | 'buckets';
  buckets?: number;
}

export interface RunResult {
  snapshotId: number;
  status: 'ready';
  buckets: number;
  rows: number;
  profiles: number;
  droppedSnapshots: number[];
}

export const completeJobId = (snapshotId: number) => `complete-${snapshotId}`;
export const bucketJobId = (snapshotId: number, bucket: number) => `bucket-${snapshotId}-${bucket}`;
export const tagsJobId = (snapshotId: number) => `tags-${snapshotId}`;

export interface RunDeps {
  config: Config;
  clickhouse: ClickHouse;
  logger: Logger;
  steps: Queue;
  flows: FlowProducer;
  worlds: WorldCache;
}

export async function processRun(deps: RunDeps, job: Job): Promise<RunResult> {
  const parsed = materializeRunJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid materialize payload: ${z.prettifyError(parsed.error)}`);
  const snapshotId = parsed.data.snapshotId ?? (await takeSnapshotId(deps.clickhouse, job, parsed.data));
  try {
    if (!(await Job.fromId(deps.steps, completeJobId(snapshotId)))) await prepareAndAddFlow(deps, job, snapshotId);
  } catch (error) {
    await setSnapshotStatus(deps.clickhouse, snapshotId, 'failed');
    throw new UnrecoverableError(`snapshot ${snapshotId} failed while preparing: ${(error as Error).message}`);
  }
  return waitForCompletion(deps.steps, completeJobId(snapshotId));
}

async function takeSnapshotId(ch: ClickHouse, job: Job, data: MaterializeRunJob): Promise<number> {
  const snapshotId = await beginSnapshot(ch);
  await job.updateData({ ...data, snapshotId } satisfies MaterializeRunJob);
  return snapshotId;
}

async function prepareAndAddFlow(deps: RunDeps, job: Job, snapshotId: number): Promise<void> {
  const { config, logger } = deps;
  await job.updateProgress({ snapshotId, phase: 'load' } satisfies RunProgress);
  const loaded = await deps.worlds.forSnapshot(snapshotId);
  await job.updateProgress({ snapshotId, phase: 'fit' } satisfies RunProgress);
  const fit = fitModel(loaded.world, loaded.settings, engineSettings(config).fitProfiles);
  logger.info(
    {
      snapshotId,
      source: fit.model.source,
      weights: Object.fromEntries(FEATURES.map((f, i) => [f, Number(fit.model.weights[i]!.toFixed(3))])),
      heldOut: fit.heldOut,
      foundAsCandidates: fit.candidates,
      foundByDefault: fit.foundByDefault,
      foundByFitted: fit.foundByFitted,
      seconds: Number(fit.seconds.toFixed(2)),
    },
    'ranking model fitted',
  );
  await storeRankingModel(deps.clickhouse, snapshotId, fit, loaded.report, loaded.budget);
  const buckets = Math.max(1, Math.ceil(loaded.world.profiles.size / config.REC_PROFILES_PER_BUCKET));
  await deps.flows.add(snapshotFlow(snapshotId, buckets, fit.model, config.MATERIALIZE_ATTEMPTS));
  await job.updateProgress({ snapshotId, phase: 'buckets', buckets } satisfies RunProgress);
}

/**
 * The parent runs when every child succeeded, or as soon as one has failed for good
 * (continueParentOnFailure), and then fails the snapshot.
 */
function snapshotFlow(snapshotId: number, buckets: number, model: RankingModel, attempts: number): FlowJob {
  const retries = { attempts, backoff: { type: 'exponential', delay: 5_000 } };
  const retried = { ...retries, continueParentOnFailure: true };
  const step = (data: MaterializeStepJob, jobId: string): FlowJob => ({
    name: data.step,
    queueName: MATERIALIZE_STEPS_QUEUE,
    data,
    opts: { jobId, ...retried },
  });
  return {
    ...step({ step: 'complete', snapshotId, buckets }, completeJobId(snapshotId)),
    opts: { jobId: completeJobId(snapshotId), ...retries },
    children: [
      ...Array.from({ length: buckets }, (_, bucket) =>
        step({ step: 'bucket', snapshotId, bucket, buckets, model }, bucketJobId(snapshotId, bucket)),
      ),
      step({ step: 'tags', snapshotId }, tagsJobId(snapshotId)),
      step({ step: 'mirrors', snapshotId }, `mirrors-${snapshotId}`),
    ],
  };
}

/** Polls rather than listening: a resumed run may start waiting after the parent finished. */
async function waitForCompletion(steps: Queue, jobId: string, pollMs = 500): Promise<RunResult> {
  for (;;) {
    const finished = await finishedJob(steps, jobId);
    if (finished?.state === 'completed') return finished.job.returnvalue as RunResult;
    // A job to be retried waits or is delayed; 'failed' is final.
    if (finished?.state === 'failed') throw new UnrecoverableError(finished.job.failedReason || `${jobId} failed`);
    await sleep(pollMs);
  }
}

/**
 * The job once it has completed or failed, else undefined. The state is read before the job:
 * a job read first could finish in between and look finished without its result.
 */
export async function finishedJob(queue: Queue, jobId: string): Promise<{ state: 'completed' | 'failed'; job: Job } | undefined> {
  const state = await queue.getJobState(jobId);
  if (state === 'unknown') throw new UnrecoverableError(`job ${jobId} is gone`);
  if (state !== 'completed' && state !== 'failed') return undefined;
  const job = await Job.fromId(queue, jobId);
  if (!job) throw new UnrecoverableError(`job ${jobId} is gone`);
  return { state, job };
}
