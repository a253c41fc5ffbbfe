/**
 * Redis's own stalls during a run, from its latency monitor (LATENCY LATEST): which kind of
 * event (a slow command, an AOF write waiting for fsync, the expire cycle, a fork, ...) held
 * its event loop longest. A latency tail that neither the server's GC nor its event loop
 * explains may be here.
 */
import type { Redis } from 'ioredis';

/** Events at or above this are recorded; Redis's monitor counts whole milliseconds. */
const THRESHOLD_MS = 2;

export interface RedisStall {
  event: string;
  maxMs: number;
}

/** Starts recording; the returned function stops and answers the events, longest first. */
export async function watchRedisStalls(redis: Redis): Promise<() => Promise<RedisStall[]>> {
  const previous = (await redis.config('GET', 'latency-monitor-threshold')) as string[];
  await redis.call('LATENCY', 'RESET');
  await redis.config('SET', 'latency-monitor-threshold', String(THRESHOLD_MS));
  return async () => {
    const latest = (await redis.call('LATENCY', 'LATEST')) as [string, number, number, number][];
    await redis.config('SET', 'latency-monitor-threshold', previous[1] ?? '0');
    return latest.map(([event, , , maxMs]) => ({ event, maxMs })).sort((a, b) => b.maxMs - a.maxMs);
  };
}

export function formatRedisStalls(stalls: RedisStall[]): string {
  if (stalls.length === 0) return `Redis: no stall of ${THRESHOLD_MS} ms or more`;
  return `Redis: longest stalls ${stalls.map((s) => `${s.event} ${s.maxMs} ms`).join(', ')}`;
}

/**
 * Loading the serving copy grows Redis's append-only file past its rewrite threshold, and
 * Redis then rewrites it in a forked child: seconds of a whole core, on a 2-core machine
 * that the load generator and the servers share. Waits until no rewrite or snapshot is in
 * progress (at most `timeoutMs`); answers how long that took.
 */
export async function settlePersistence(redis: Redis, timeoutMs = 300_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const info = await redis.info('persistence');
    const busy = /^(aof_rewrite_in_progress|aof_rewrite_scheduled|rdb_bgsave_in_progress):1/m.test(info);
    if (!busy) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`Redis still rewriting its AOF after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
