/**
 * A Queue handle for every queue of the pipeline (allQueueNames()) over one shared Redis
 * connection, for the readers that look at all queues at once: the queue dashboard and the
 * queue-depth metric. A queue added to allQueueNames() appears in both without edits.
 */
import { Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { allQueueNames } from '../shared/queues.ts';
import { createRedis, redisConnection } from '../shared/redis.ts';

export interface PipelineQueues {
  queues: Queue[];
  close(): Promise<void>;
}

export function openPipelineQueues(config: Config): PipelineQueues {
  // BullMQ leaves a connection it was given open on queue.close(): this owner closes it.
  const connection = createRedis(redisConnection(config, 'producer'));
  const queues = allQueueNames().map((name) => new Queue(name, { connection, prefix: config.QUEUE_PREFIX }));
  return {
    queues,
    async close() {
      await Promise.all(queues.map((queue) => queue.close()));
      connection.disconnect();
    },
  };
}
