/** The ingest queue of one kind as the chaos run watches it: workers connected, jobs failed, jobs still to do. */
import { Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { ingestQueueName } from '../shared/queues.ts';
import { redisConnection } from '../shared/redis.ts';
import type { KindName } from '../shared/records/kinds.ts';

async function withQueue<T>(config: Config, kind: KindName, read: (queue: Queue) => Promise<T>): Promise<T> {
  const queue = new Queue(ingestQueueName(kind), { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    return await read(queue);
  } finally {
    await queue.close();
  }
}

export function workersServing(config: Config, kind: KindName): Promise<number> {
  return withQueue(config, kind, (queue) => queue.getWorkersCount());
}

export function failedJobs(config: Config, kind: KindName): Promise<number> {
  return withQueue(config, kind, (queue) => queue.getFailedCount());
}

/** Jobs not finished yet: waiting, active, delayed (retries in backoff) or prioritized. */
export async function unfinishedJobs(config: Config, kind: KindName): Promise<number> {
  const counts = await withQueue(config, kind, (queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized'));
  return Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
}
