/**
 * Reconciles BullMQ's job schedulers with the declared list (schedules.ts), and lists
 * them with their next run.
 */
import { Queue, type ConnectionOptions, type JobSchedulerTemplateOptions } from 'bullmq';
import type { Config } from '../shared/config.ts';
import type { ScheduleDeclaration } from './schedules.ts';

export interface ScheduleState {
  id: string;
  queue: string;
  cron: string;
  next: Date | undefined;
}

/**
 * Every scheduled job: a few attempts, and bounded history (Redis runs noeviction): the
 * last runs stay for inspection, failed ones longer, with their reason (`soulgraph retry`).
 */
export const SCHEDULED_JOB_OPTIONS: JobSchedulerTemplateOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: { count: 50 },
  removeOnFail: { count: 200, age: 30 * 24 * 3600 },
};

export async function reconcileSchedules(
  config: Config,
  connection: ConnectionOptions,
  declared: ScheduleDeclaration[],
  queueNames: string[],
): Promise<{ upserted: string[]; removed: string[] }> {
  const upserted: string[] = [];
  const removed: string[] = [];
  const byQueue = groupByQueue(declared);
  for (const queueName of new Set([...queueNames, ...byQueue.keys()])) {
    const declarations = byQueue.get(queueName) ?? [];
    const queue = new Queue(queueName, { connection, prefix: config.QUEUE_PREFIX });
    try {
      const wanted = new Set(declarations.map((d) => d.id));
      for (const d of declarations) {
        await queue.upsertJobScheduler(d.id, { pattern: d.cron, tz: 'UTC' }, { name: d.jobName, data: d.data, opts: { ...SCHEDULED_JOB_OPTIONS, ...d.opts } });
        upserted.push(`${queueName}/${d.id}`);
      }
      for (const existing of await queue.getJobSchedulers()) {
        const id = existing.key;
        if (!wanted.has(id)) {
          await queue.removeJobScheduler(id);
          removed.push(`${queueName}/${id}`);
        }
      }
    } finally {
      await queue.close();
    }
  }
  return { upserted, removed };
}

export async function listSchedules(
  config: Config,
  connection: ConnectionOptions,
  queueNames: string[],
): Promise<ScheduleState[]> {
  const states: ScheduleState[] = [];
  for (const queueName of queueNames) {
    const queue = new Queue(queueName, { connection, prefix: config.QUEUE_PREFIX });
    try {
      for (const s of await queue.getJobSchedulers()) {
        states.push({ id: s.key, queue: queueName, cron: s.pattern ?? '', next: s.next ? new Date(s.next) : undefined });
      }
    } finally {
      await queue.close();
    }
  }
  return states;
}

function groupByQueue(declared: ScheduleDeclaration[]): Map<string, ScheduleDeclaration[]> {
  const byQueue = new Map<string, ScheduleDeclaration[]>();
  for (const d of declared) byQueue.set(d.queue, [...(byQueue.get(d.queue) ?? []), d]);
  return byQueue;
}
