/**
 * Every recurring job, declared in one list. The scheduler reconciles BullMQ with it on
 * start: declared schedulers are created or updated, undeclared ones removed.
 * Times are UTC.
 */
import type { JobsOptions } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { CHAIN_QUEUE, MAINTENANCE_QUEUE, MATERIALIZE_QUEUE, type ChainJob, type MaintenanceJob, type MaterializeRunJob } from '../shared/queues.ts';
import { runJobOptions } from './materialize/run/run-watch.ts';

export interface ScheduleDeclaration {
  /** Scheduler id, unique within its queue. */
  id: string;
  queue: string;
  cron: string;
  jobName: string;
  data: unknown;
  /** Options of each job it creates. */
  opts?: JobsOptions;
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
    {
      id: 'nightly-materialize',
      queue: MATERIALIZE_QUEUE,
      cron: config.MATERIALIZE_CRON,
      jobName: 'run',
      data: { trigger: 'schedule' } satisfies MaterializeRunJob,
      opts: runJobOptions,
    },
    // One follow entry per configured chain (CHAINS); none when no chain is configured.
    ...config.CHAINS.map((chain) => ({
      id: `chain-follow-${chain.id}`,
      queue: CHAIN_QUEUE,
      cron: config.CHAIN_FOLLOW_CRON,
      jobName: 'follow',
      data: { task: 'follow', chainId: chain.id } satisfies ChainJob,
      // A follow job is cheap to repeat: the next one continues from the checkpoint.
      opts: { attempts: 1 },
    })),
  ];
}
