/**
 * The materialization workers, registered together: the `run` worker (one run at a time,
 * across every process), the steps worker (bucket, tags, mirrors and complete jobs; several
 * processes may share the buckets, each ranking from the world it holds), and the on-demand
 * worker for lists a snapshot lacks (a new user's), which ranks from the same world.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { FlowProducer, Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import type { Config } from '../../../shared/config.ts';
import type { Logger } from '../../../shared/logger.ts';
import { COLD_START_QUEUE, MATERIALIZE_QUEUE, MATERIALIZE_STEPS_QUEUE } from '../../../shared/queues.ts';
import { createServingWriter } from '../../serving/serving-writer.ts';
import { listSnapshots } from '../publish/snapshots.ts';
import { WorldCache } from './loaded-world.ts';
import { processRun } from './materialize-run.ts';
import { processStep } from './materialize-steps.ts';
import { processOnDemand } from './on-demand-lists.ts';

export interface MaterializeWorkerDeps {
  config: Config;
  clickhouse: ClickHouse;
  /** Worker connection options (maxRetriesPerRequest: null). */
  connection: ConnectionOptions;
  logger: Logger;
}

export interface MaterializeWorkers {
  workers: Worker[];
  /**
   * Lets the steps in progress finish, and releases the run job at once: it only waits for
   * its flow, and another worker resumes it when its lock expires.
   */
  close(): Promise<void>;
}

/** Long ClickHouse statements: a lock renewed every few seconds survives them; a dead worker's job moves on within a minute. */
const LOCK_MS = 60_000;

export async function createMaterializeWorkers(deps: MaterializeWorkerDeps): Promise<MaterializeWorkers> {
  const { config, connection } = deps;
  const prefix = config.QUEUE_PREFIX;
  const serving = createServingWriter(config);
  const worlds = new WorldCache(deps.clickhouse, config, deps.logger);
  const workerName = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const steps = new Queue(MATERIALIZE_STEPS_QUEUE, { connection, prefix });
  const flows = new FlowProducer({ connection, prefix });
  const runs = new Queue(MATERIALIZE_QUEUE, { connection, prefix });
  await runs.setGlobalConcurrency(1);
  await runs.close();

  const runWorker = new Worker(MATERIALIZE_QUEUE, (job) => processRun({ ...deps, steps, flows, worlds }, job), {
    connection,
    prefix,
    concurrency: 1,
    lockDuration: LOCK_MS,
    name: 'soulgraph-materialize',
  });
  const stepWorker = new Worker(MATERIALIZE_STEPS_QUEUE, (job) => processStep({ ...deps, serving, worlds, workerName }, job), {
    connection,
    prefix,
    concurrency: config.MATERIALIZE_CONCURRENCY,
    lockDuration: LOCK_MS,
    name: 'soulgraph-materialize-steps',
  });
  // New users wait for these: their own worker, never behind a night's buckets.
  const coldStartWorker = new Worker(COLD_START_QUEUE, (job) => processOnDemand({ ...deps, serving, worlds }, job), {
    connection,
    prefix,
    concurrency: 2,
    lockDuration: LOCK_MS,
    name: 'soulgraph-cold-start',
  });
  void loadNewestWorld(deps, worlds);
  return {
    workers: [runWorker, stepWorker, coldStartWorker],
    async close() {
      await Promise.all([runWorker.close(true), stepWorker.close(), coldStartWorker.close()]);
      await worlds.close();
      await flows.close();
      await steps.close();
      await serving.close();
    },
  };
}

/**
 * Lists on demand rank from a resident world: a process that starts where a snapshot is ready
 * loads that snapshot's world now, not while the first newcomer waits (seconds at 100 k
 * profiles, past COLD_START_WAIT_MS). A failure here only delays that to the first list.
 */
async function loadNewestWorld(deps: MaterializeWorkerDeps, worlds: WorldCache): Promise<void> {
  try {
    const ready = (await listSnapshots(deps.clickhouse)).filter((s) => s.status === 'ready').at(-1);
    if (ready && !worlds.holds(ready.snapshot_id)) await worlds.forSnapshot(ready.snapshot_id);
  } catch (error) {
    deps.logger.warn({ err: error }, 'the newest world was not loaded at start: the first list on demand loads it');
  }
}
