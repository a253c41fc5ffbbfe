/**
 * One Prometheus registry per process (API, workers), never prom-client's global one:
 * tests run several apps in one process, and each must count only its own work.
 * Process metrics (CPU, memory, event-loop lag, GC) come with it.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

export type { Registry };

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
