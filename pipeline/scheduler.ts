/**
 * The scheduler process: reconciles the declared job schedulers (schedules.ts) with
 * BullMQ on start. BullMQ itself then enqueues each job when it is due, so the scheduler
 * holds no timers: several replicas are safe, and a restart loses nothing.
 */
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import { allQueueNames } from '../shared/queues.ts';
import { redisConnection } from '../shared/redis.ts';
import { reconcileSchedules } from './job-schedulers.ts';
import { declaredSchedules } from './schedules.ts';

export async function startScheduler(config: Config, logger: Logger): Promise<{ upserted: string[]; removed: string[] }> {
  const result = await reconcileSchedules(
    config,
    redisConnection(config, 'producer'),
    declaredSchedules(config),
    allQueueNames(),
  );
  logger.info(result, 'job schedulers reconciled');
  return result;
}
