import { UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { MAINTENANCE_QUEUE, maintenanceJobSchema } from '../../shared/queues.ts';
import { compactTables } from './compact-tables.ts';

export function createMaintenanceWorker(deps: {
  config: Config;
  clickhouse: ClickHouse;
  connection: ConnectionOptions;
  logger: Logger;
}): Worker {
  const log = deps.logger.child({ queue: MAINTENANCE_QUEUE });
  return new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      const payload = maintenanceJobSchema.safeParse(job.data);
      if (!payload.success) throw new UnrecoverableError(`invalid maintenance payload: ${z.prettifyError(payload.error)}`);
      await compactTables(deps.clickhouse, (table) => log.info({ jobId: job.id, table }, 'compacted'));
    },
    { connection: deps.connection, prefix: deps.config.QUEUE_PREFIX, concurrency: 1, lockDuration: 600_000 },
  );
}
