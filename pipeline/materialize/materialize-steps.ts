/**
 * The jobs of a run's flow (materialize-steps queue): one per bucket, one for tags, one for
 * the serving mirrors, and the `complete` parent that marks the snapshot ready, or failed
 * when a child failed for good.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { awaitReplication } from '../../shared/clickhouse/replication-wait.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { materializeStepJobSchema, type MaterializeStepJob } from '../../shared/queues.ts';
import { computeBucket, type BucketResult } from './bucket.ts';
import type { BucketNodes } from './bucket-nodes.ts';
import { bucketQuerySettings } from './bucket-settings.ts';
import type { RunResult } from './materialize-run.ts';
import { writeProfileTags } from './profile-tags.ts';
import { materializeQuerySettings, scoringParams } from './scoring.ts';
import { dropSnapshotPartitions } from './snapshot-partitions.ts';
import { dropExpiredSnapshots, listSnapshots, setSnapshotStatus } from './snapshots.ts';
import { WORKING_TABLES } from './working-set.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { publishLists } from '../serving/list-publisher.ts';
import { syncMirrors, type MirrorSyncResult } from '../serving/mirror-sync.ts';
import type { ServingWriter } from '../serving/serving-writer.ts';

export interface StepDeps {
  config: Config;
  clickhouse: ClickHouse;
  logger: Logger;
  serving: ServingWriter;
  /** Which node computes a bucket (bucket-nodes.ts); default: clickhouse's. */
  nodes?: BucketNodes;
}

type StepResult = BucketResult | RunResult | { tags: true } | { mirrored: MirrorSyncResult };

export async function processStep(deps: StepDeps, job: Job): Promise<StepResult> {
  const parsed = materializeStepJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid materialize step payload: ${z.prettifyError(parsed.error)}`);
  const step = parsed.data;
  switch (step.step) {
    case 'bucket':
      return bucketAndServe(deps, step);
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

/** A bucket's rows, then its profiles' lists in the serving copy (before the snapshot is ready, so no reader misses them). */
async function bucketAndServe(deps: StepDeps, step: Extract<MaterializeStepJob, { step: 'bucket' }>): Promise<BucketResult> {
  const { config } = deps;
  const { snapshotId, bucket, buckets } = step;
  const node = (await deps.nodes?.forBucket(bucket)) ?? { client: deps.clickhouse };
  const ch = node.client;
  const started = performance.now();
  const result = await computeBucket(ch, snapshotId, bucket, buckets, scoringParams(config), await bucketQuerySettings(ch, config));
  const computed = performance.now();
  const members = await ch.query(
    sql`SELECT profile_id FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND pid % ${buckets} = ${bucket}`,
    z.object({ profile_id: z.string() }),
  );
  const settings = materializeQuerySettings(config);
  await publishLists(ch, deps.serving, snapshotId, sql`bucket = ${bucket}`, config.SERVING_DEPTH, members.map((m) => m.profile_id), settings);
  return { ...result, ...(node.address ? { node: node.address } : {}), computeSeconds: (computed - started) / 1000, publishSeconds: (performance.now() - computed) / 1000 };
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
  await dropOlderWorkingSets(ch, step.snapshotId);
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

/** Only the serving snapshot's working set is still needed (by on-demand computations). */
async function dropOlderWorkingSets(ch: ClickHouse, servingId: number): Promise<void> {
  for (const snapshot of await listSnapshots(ch)) {
    if (snapshot.snapshot_id < servingId && snapshot.status !== 'dropped') await dropSnapshotPartitions(ch, WORKING_TABLES, snapshot.snapshot_id);
  }
}
