/**
 * A nightly run, as the `run` job on the materialize queue (one at a time): take a snapshot
 * id, build the working set, add the flow of bucket jobs under a `complete` parent, and
 * wait for that parent. The run job ends when the snapshot is ready or failed, so two runs
 * never overlap.
 *
 * A run whose worker died resumes: the snapshot id is kept in the job's data, the working
 * set is rebuilt from scratch (it drops what the dead attempt wrote), and a flow that was
 * already added is waited for, not added twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowProducer, Job, Queue, UnrecoverableError, type FlowJob } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import {
  MATERIALIZE_STEPS_QUEUE,
  materializeRunJobSchema,
  type MaterializeRunJob,
  type MaterializeStepJob,
} from '../../shared/queues.ts';
import { bucketCount } from './bucket-count.ts';
import { materializeQuerySettings, scoringParams } from './scoring.ts';
import { beginSnapshot, setSnapshotStatus } from './snapshots.ts';
import { readScoringFit } from './scoring-fit.ts';
import { readPathBudget } from './path-budget.ts';
import { readPathWeightFit } from './path-weight-fit.ts';
import { readRecencyFit } from './path-recency.ts';
import { readUnnamedPathsFit } from './unnamed-paths-fit.ts';
import { buildWorkingSet } from './working-set.ts';

export interface RunProgress {
  snapshotId: number;
  phase: 'working-set' | 'buckets';
  /** The working-set table most recently started, during 'working-set' (MATERIALIZE_CONCURRENCY are written at once). */
  table?: string;
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
  const { config, clickhouse } = deps;
  const settings = materializeQuerySettings(config);
  // Working-set statements run MATERIALIZE_CONCURRENCY at a time, like buckets, each under its own memory cap.
  const summary = await buildWorkingSet(clickhouse, snapshotId, scoringParams(config), settings, config.MATERIALIZE_CONCURRENCY, (table) => {
    void job.updateProgress({ snapshotId, phase: 'working-set', table } satisfies RunProgress);
  });
  deps.logger.info({ snapshotId, ...(await readScoringFit(clickhouse, snapshotId)) }, 'follows-you weight fitted');
  deps.logger.info({ snapshotId, ...(await readPathBudget(clickhouse, snapshotId)), ...(await readPathWeightFit(clickhouse, snapshotId)) }, 'paths budgeted and their weight fitted');
  deps.logger.info({ snapshotId, ...(await readRecencyFit(clickhouse, snapshotId)) }, 'path recency fitted');
  deps.logger.info({ snapshotId, ...(await readUnnamedPathsFit(clickhouse, snapshotId)) }, 'unnamed paths fitted');
  const buckets = await bucketsFor(clickhouse, snapshotId, summary.profiles, config);
  await deps.flows.add(snapshotFlow(snapshotId, buckets, config.MATERIALIZE_ATTEMPTS));
  await job.updateProgress({ snapshotId, phase: 'buckets', buckets } satisfies RunProgress);
}

/**
 * The run's buckets (bucket-count.ts), from its estimate of the evidence rows: what each
 * first hop and follower hop passes on (at most passes_on of what it follows), one row per
 * follower (follows you), and each holder of a collection paired with at most
 * REC_NFT_CANDIDATES_PER_COLLECTION others.
 */
async function bucketsFor(ch: ClickHouse, snapshotId: number, profiles: number, config: Config): Promise<number> {
  const of = sql`WHERE snapshot_id = ${snapshotId}`;
  const passedOn = sql`sum(least(degree, passes_on))`;
  const [row] = await ch.query(
    sql`SELECT
          (SELECT ${passedOn} FROM mat_first_hops ${of}) + (SELECT ${passedOn} FROM mat_follower_hops ${of}) AS paths,
          (SELECT count() FROM mat_follow_edges ${of}) AS followers,
          (SELECT sum(holders * least(holders, ${config.REC_NFT_CANDIDATES_PER_COLLECTION})) FROM mat_collections ${of}) AS pairs`,
    z.object({ paths: z.coerce.number(), followers: z.coerce.number(), pairs: z.coerce.number() }),
  );
  return bucketCount({ profiles, estimatedRows: (row?.paths ?? 0) + (row?.followers ?? 0) + (row?.pairs ?? 0) }, config);
}

/**
 * The parent runs when every child succeeded, or as soon as one has failed for good
 * (continueParentOnFailure), and then fails the snapshot.
 */
function snapshotFlow(snapshotId: number, buckets: number, attempts: number): FlowJob {
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
        step({ step: 'bucket', snapshotId, bucket, buckets }, bucketJobId(snapshotId, bucket)),
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
