/**
 * The jobs of a run's flow (materialize-steps queue): one per bucket of profiles, one for
 * tags, one for the serving mirrors, and the `complete` parent that marks the snapshot ready,
 * or failed when a child failed for good.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { awaitReplication } from '../../../shared/clickhouse/replication-wait.ts';
import type { Config } from '../../../shared/config.ts';
import type { Logger } from '../../../shared/logger.ts';
import { materializeStepJobSchema, type MaterializeStepJob } from '../../../shared/queues.ts';
import { syncMirrors, type MirrorSyncResult } from '../../serving/mirror-sync.ts';
import type { ServingWriter } from '../../serving/serving-writer.ts';
import { materializeQuerySettings } from '../engine-settings.ts';
import { dropSnapshotPartitions } from '../publish/snapshot-partitions.ts';
import { dropExpiredSnapshots, setSnapshotStatus } from '../publish/snapshots.ts';
import { FEATURE_COUNT } from '../rank/features.ts';
import { rankingModelSchema } from '../rank/ranking-model.ts';
import { writeBucket } from '../write/bucket-writer.ts';
import { writeProfileTags } from '../write/profile-tags.ts';
import { bucketMembers } from './bucket-members.ts';
import type { WorldCache } from './loaded-world.ts';
import type { RunResult } from './materialize-run.ts';

export interface StepDeps {
  config: Config;
  clickhouse: ClickHouse;
  logger: Logger;
  serving: ServingWriter;
  worlds: WorldCache;
  /** Which worker process this is (host, pid and a random part): a bucket's result names where it was ranked. */
  workerName: string;
}

export interface BucketResult {
  bucket: number;
  /** The worker process that ranked it (StepDeps.workerName). */
  worker: string;
  profiles: number;
  rows: number;
  /** Seconds to load the world, when this job loaded it (another process's run). */
  loadSeconds?: number;
  rankSeconds: number;
  seconds: number;
}

type StepResult = BucketResult | RunResult | { tags: true } | { mirrored: MirrorSyncResult };

export async function processStep(deps: StepDeps, job: Job): Promise<StepResult> {
  const parsed = materializeStepJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid materialize step payload: ${z.prettifyError(parsed.error)}`);
  const step = parsed.data;
  switch (step.step) {
    case 'bucket':
      return rankBucket(deps, step);
    case 'mirrors':
      return { mirrored: await syncMirrors(deps.clickhouse, deps.serving, mirrorSyncOptions(deps.config)) };
    case 'tags':
      await dropSnapshotPartitions(deps.clickhouse, ['profile_tags'], step.snapshotId);
      await writeProfileTags(deps.clickhouse, step.snapshotId, materializeQuerySettings(deps.config));
      return { tags: true };
    case 'complete':
      return completeSnapshot(deps, job, step);
  }
}

function mirrorSyncOptions(config: Config) {
  return {
    marginSeconds: config.SERVING_MIRROR_SYNC_MARGIN_SECONDS,
    fullSyncEverySeconds: Math.round(config.SERVING_MIRROR_FULL_SYNC_DAYS * 24 * 3600),
    querySettings: materializeQuerySettings(config),
  };
}

/**
 * A bucket's lists: ranked from the world this process holds for the snapshot (loaded now if
 * it holds none: the run ran elsewhere), written into the snapshot's rows and the serving copy
 * before the snapshot is ready, so that no reader misses them. A retried bucket first drops
 * what its earlier attempt wrote.
 */
async function rankBucket(deps: StepDeps, step: Extract<MaterializeStepJob, { step: 'bucket' }>): Promise<BucketResult> {
  const { snapshotId, bucket, buckets } = step;
  const model = rankingModelSchema.safeParse(step.model);
  if (!model.success || model.data.weights.length !== FEATURE_COUNT) throw new UnrecoverableError(`bucket ${bucket}: the run's model has ${step.model.weights.length} weights, this worker ranks ${FEATURE_COUNT} features (mixed releases?)`);
  const loadedHere = !deps.worlds.holds(snapshotId);
  const loaded = await deps.worlds.forSnapshot(snapshotId);
  await dropSnapshotPartitions(deps.clickhouse, ['recommendations'], snapshotId, bucket);
  const members = bucketMembers(loaded.world.profiles, bucket, buckets);
  const written = await writeBucket(deps.clickhouse, deps.serving, await loaded.pool(), loaded.world, members, model.data, {
    snapshotId,
    bucket,
    servingDepth: deps.config.SERVING_DEPTH,
  });
  return { bucket, worker: deps.workerName, profiles: written.profiles, rows: written.rows, ...(loadedHere ? { loadSeconds: loaded.report.seconds } : {}), rankSeconds: written.rankSeconds, seconds: written.seconds };
}

async function completeSnapshot(deps: StepDeps, job: Job, step: Extract<MaterializeStepJob, { step: 'complete' }>): Promise<RunResult> {
  const { clickhouse: ch, config } = deps;
  const failures = Object.values(await job.getFailedChildrenValues());
  if (failures.length > 0) {
    // The other children would only write rows nobody reads.
    await job.removeUnprocessedChildren();
    await setSnapshotStatus(ch, step.snapshotId, 'failed');
    throw new UnrecoverableError(`snapshot ${step.snapshotId} failed: ${failures[0]}`);
  }
  const buckets = Object.values(await job.getChildrenValues<StepResult>()).filter((v): v is BucketResult => 'bucket' in v);
  // On a cluster, every replica holds the snapshot's rows before any reader may pick it.
  await awaitReplication(ch, ['recommendations', 'profile_tags']);
  await setSnapshotStatus(ch, step.snapshotId, 'ready');
  const droppedSnapshots = await dropExpiredSnapshots(ch, {
    keepReady: config.SNAPSHOT_KEEP_READY,
    minAgeSeconds: config.SNAPSHOT_MIN_AGE_SECONDS,
  });
  const result: RunResult = {
    snapshotId: step.snapshotId,
    status: 'ready',
    buckets: step.buckets,
    rows: buckets.reduce((n, b) => n + b.rows, 0),
    profiles: buckets.reduce((n, b) => n + b.profiles, 0),
    droppedSnapshots,
  };
  deps.logger.info(result, 'snapshot ready');
  await persistServingCopy(deps);
  return result;
}

/**
 * The serving copy now holds the new lists and the re-synced mirrors: saved, so that a
 * restarted serving Redis starts from them. A Redis that refuses BGSAVE (a managed service
 * may) costs only that, not the snapshot, which is ready already.
 */
async function persistServingCopy(deps: StepDeps): Promise<void> {
  try {
    await deps.serving.snapshot();
  } catch (error) {
    deps.logger.warn({ err: error }, 'the serving Redis did not start a snapshot (BGSAVE): after a restart it would serve the copy it saved last');
  }
}
