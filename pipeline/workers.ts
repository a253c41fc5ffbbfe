/**
 * The workers process: one BullMQ worker per ingestion queue, housekeeping, the nightly
 * materialization, and on-chain ingestion (when CHAINS is set), all registered here. On SIGTERM it stops taking jobs, lets the current ones finish (or
 * releases them to another worker when the timeout passes), then closes its connections.
 *
 * A BullMQ worker whose Redis died never finishes closing (Worker.close() waits for its
 * blocking connection to end, which a reconnecting ioredis client never does: bullmq#4656,
 * reproduced in test/integration/workers-close.test.ts). So close() gives the workers
 * WORKERS_CLOSE_GRACE_MS, then names those still closing, disconnects them and goes on:
 * their jobs are not lost (another worker takes a job whose lock lapses).
 *
 *   npx soulgraph workers            (or: npm run workers)
 */
import { Queue, type Worker } from 'bullmq';
import { Registry } from 'prom-client';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import { ingestQueueName } from '../shared/queues.ts';
import { createRedis, redisConnection } from '../shared/redis.ts';
import { kindNames, type KindName } from '../shared/records/kinds.ts';
import { sweepChunkTexts } from './ingest/chunk-text-sweeper.ts';
import { ChunkTexts } from './ingest/chunk-texts.ts';
import { createIngestWorker, SERIAL_KINDS } from './ingest/ingest.worker.ts';
import { observeJobs } from './job-observer.ts';
import { createMaintenanceWorker } from './maintenance/maintenance.worker.ts';
import { createMaterializeWorkers } from './materialize/run/materialize.worker.ts';
import { createPipelineMetrics, type PipelineMetrics } from './metrics/pipeline-metrics.ts';
import { createServingWriter } from './serving/serving-writer.ts';
import { settlesWithin } from './settles-within.ts';

/** Kinds the API reads live from the serving copy (names, avatars, who follows whom). */
const MIRRORED_KINDS: readonly KindName[] = ['profiles', 'follows'];

export interface RunningWorkers {
  workers: Worker[];
  /** What the workers count (jobs, failures, rows); served at /metrics by the workers process. */
  metrics: PipelineMetrics;
  /** Waits for running jobs to finish, then closes every connection; a worker still closing after the grace is disconnected (see the top). */
  close(): Promise<void>;
  /** The queues whose workers have not finished closing (BullMQ's 'closed' event): after close(), those it disconnected. */
  stillClosing(): string[];
}

/** How long close() waits for the workers to close before disconnecting them: under a shutdown step's 30 s (shared/shutdown.ts), so that the connections after them still close. */
export const WORKERS_CLOSE_GRACE_MS = 25_000;

export async function startWorkers(
  config: Config,
  logger: Logger,
  options: { kinds?: readonly KindName[]; maintenance?: boolean; materialize?: boolean; chain?: boolean; metrics?: PipelineMetrics; closeGraceMs?: number } = {},
): Promise<RunningWorkers> {
  const clickhouse = createClickHouse(config);
  const connection = redisConnection(config, 'worker');
  const metrics = options.metrics ?? createPipelineMetrics(new Registry());
  const kinds = options.kinds ?? kindNames;
  const serving = kinds.some((k) => MIRRORED_KINDS.includes(k)) ? createServingWriter(config) : undefined;
  const chunkRedis = createRedis(connection);
  // Its errors are the workers' too, which log each as 'worker error' (job-observer.ts):
  // without a listener ioredis would also print a stack per reconnect attempt.
  chunkRedis.on('error', () => {});
  const chunkTexts = new ChunkTexts(chunkRedis, config.QUEUE_PREFIX);
  const deps = { config, clickhouse, connection, chunkTexts, logger, serving, metrics };

  await enforceSerialKinds(config, kinds);
  const workers: Worker[] = kinds.map((kind) => createIngestWorker(kind, deps));
  if (options.maintenance ?? true) workers.push(createMaintenanceWorker(deps));
  // A process started for some kinds only (the CLI's in-process workers) leaves materialization to others.
  const materialize = (options.materialize ?? options.kinds === undefined) ? await createMaterializeWorkers(deps) : undefined;
  // On-chain ingestion runs where chains are configured, unless the process was started for some kinds only.
  // Loaded only when needed: viem and the chain pipeline stay out of processes that never ingest a chain.
  const chain =
    (options.chain ?? options.kinds === undefined) && config.CHAINS.length > 0
      ? (await import('./chain/chain.worker.ts')).createChainWorker(deps)
      : undefined;
  const all = [...workers, ...(materialize?.workers ?? []), ...(chain ? [chain.worker] : [])];
  for (const worker of all) observeJobs(worker, logger, metrics);
  const closed = new Set<Worker>();
  for (const worker of all) worker.once('closed', () => closed.add(worker));
  const stillClosing = () => [...new Set(all.filter((w) => !closed.has(w)).map((w) => w.name))];
  await Promise.all(all.map((w) => w.waitUntilReady()));
  const stopSweeping = kinds.length > 0 ? sweepChunkTexts(chunkTexts, logger) : async () => {};
  logger.info({ queues: all.map((w) => w.name) }, 'workers ready');

  return {
    workers: all,
    metrics,
    stillClosing,
    async close() {
      const closing = Promise.all([...workers.map((w) => w.close()), materialize?.close(), chain?.close()]);
      const forced = (await settlesWithin(closing, options.closeGraceMs ?? WORKERS_CLOSE_GRACE_MS)) ? [] : stillClosing();
      if (forced.length > 0) {
        logger.error({ queues: forced }, 'workers did not close in time (their Redis may be gone): disconnected');
        for (const worker of all.filter((w) => forced.includes(w.name))) void worker.disconnect().catch(() => {});
      }
      await stopSweeping();
      await chunkRedis.quit().catch(() => chunkRedis.disconnect());
      await serving?.close();
      await clickhouse.close();
    },
  };
}

/** One job at a time across every worker process, not only within this one. */
async function enforceSerialKinds(config: Config, kinds: readonly KindName[]): Promise<void> {
  for (const kind of kinds.filter((k) => SERIAL_KINDS.includes(k))) {
    const queue = new Queue(ingestQueueName(kind), {
      connection: redisConnection(config, 'producer'),
      prefix: config.QUEUE_PREFIX,
    });
    try {
      await queue.setGlobalConcurrency(1);
    } finally {
      await queue.close();
    }
  }
}
