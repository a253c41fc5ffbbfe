/**
 * soulgraph_queue_jobs{queue, state}: jobs per queue and state, read from Redis at scrape
 * time for every queue of the pipeline. Every worker replica reports the same numbers:
 * aggregate with max, not sum.
 */
import type { Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';

const STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'] as const;

export function registerQueueDepth(registry: Registry, queues: readonly Queue[]): void {
  new Gauge({
    name: 'soulgraph_queue_jobs',
    help: 'Jobs per queue and state, from Redis at scrape time (queue depth: state="waiting"; the same in every replica)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...STATES)));
      this.reset();
      queues.forEach((queue, i) => {
        for (const state of STATES) this.set({ queue: queue.name, state }, counts[i]![state] ?? 0);
      });
    },
  });
}
