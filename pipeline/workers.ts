/**
 * The workers process: one BullMQ worker per ingestion queue plus housekeeping, all
 * registered here. On SIGTERM it stops taking jobs, lets the current ones finish (or
 * releases them to another worker when the timeout passes), then closes its connections.
 *
 *   npx soulgraph workers            (or: npm run workers)
 */
import { Queue, type Worker } from 'bullmq';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import { ingestQueueName } from '../shared/queues.ts';
import { redisConnection } from '../shared/redis.ts';
import { kindNames, type KindName } from '../shared/records/kinds.ts';
import { createIngestWorker, SERIAL_KINDS } from './ingest/ingest.worker.ts';
import { createMaintenanceWorker } from './maintenance/maintenance.worker.ts';

export interface RunningWorkers {
  workers: Worker[];
  /** Waits for running jobs to finish, then closes every connection. */
  close(): Promise<void>;
}

export async function startWorkers(
  config: Config,
  logger: Logger,
  options: { kinds?: readonly KindName[]; maintenance?: boolean } = {},
): Promise<RunningWorkers> {
  const clickhouse = createClickHouse(config);
  const connection = redisConnection(config, 'worker');
  const deps = { config, clickhouse, connection, logger };
  const kinds = options.kinds ?? kindNames;

  await enforceSerialKinds(config, kinds);
  const workers: Worker[] = kinds.map((kind) => createIngestWorker(kind, deps));
  if (options.maintenance ?? true) workers.push(createMaintenanceWorker(deps));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  logger.info({ queues: workers.map((w) => w.name) }, 'workers ready');

  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
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
