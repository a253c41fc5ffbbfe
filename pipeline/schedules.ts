/**
 * Every recurring job, declared in one list. The scheduler reconciles BullMQ with it on
 * start: declared schedulers are created or updated, undeclared ones removed.
 * Times are UTC.
 */
import type { Config } from '../shared/config.ts';
import { MAINTENANCE_QUEUE, type MaintenanceJob } from '../shared/queues.ts';

export interface ScheduleDeclaration {
  /** Scheduler id, unique within its queue. */
  id: string;
  queue: string;
  cron: string;
  jobName: string;
  data: unknown;
}

export function declaredSchedules(config: Config): ScheduleDeclaration[] {
  return [
    {
      id: 'compact-raw-tables',
      queue: MAINTENANCE_QUEUE,
      cron: config.COMPACT_CRON,
      jobName: 'compact-tables',
      data: { task: 'compact-tables' } satisfies MaintenanceJob,
    },
  ];
}
