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

/** A command Redis took `ms` or more over (its slow log), named by what it ran. */
export interface SlowCommand {
  command: string;
  ms: number;
}

export interface RedisStalls {
  events: RedisStall[];
  /** The slowest commands, slowest first (at most SLOW_COMMANDS_SHOWN). */
  slowCommands: SlowCommand[];
}

const SLOW_COMMANDS_SHOWN = 5;

/**
 * Starts recording; the returned function stops and answers the events, longest first, and
 * which commands were slow (the latency monitor says only that one was).
 */
export async function watchRedisStalls(redis: Redis): Promise<() => Promise<RedisStalls>> {
  const previousThreshold = (await redis.config('GET', 'latency-monitor-threshold')) as string[];
  const previousSlowlog = (await redis.config('GET', 'slowlog-log-slower-than')) as string[];
  await redis.call('LATENCY', 'RESET');
  await redis.call('SLOWLOG', 'RESET');
  await redis.config('SET', 'latency-monitor-threshold', String(THRESHOLD_MS));
  await redis.config('SET', 'slowlog-log-slower-than', String(THRESHOLD_MS * 1000));
  return async () => {
    const latest = (await redis.call('LATENCY', 'LATEST')) as [string, number, number, number][];
    const slowlog = (await redis.call('SLOWLOG', 'GET', '128')) as [number, number, number, string[]][];
    await redis.config('SET', 'latency-monitor-threshold', previousThreshold[1] ?? '0');
    await redis.config('SET', 'slowlog-log-slower-than', previousSlowlog[1] ?? '10000');
    return {
      events: latest.map(([event, , , maxMs]) => ({ event, maxMs })).sort((a, b) => b.maxMs - a.maxMs),
      slowCommands: slowlog
        .map(([, , us, args]) => ({ command: commandName(args), ms: Math.round(us / 100) / 10 }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, SLOW_COMMANDS_SHOWN),
    };
  };
}

/** The command and its first argument (a script's sha, a key), never the values it carried. */
function commandName(args: string[]): string {
  return args.slice(0, 2).join(' ').slice(0, 60);
}

export function formatRedisStalls(stalls: RedisStalls): string {
  if (stalls.events.length === 0) return `Redis: no stall of ${THRESHOLD_MS} ms or more`;
  const slow = stalls.slowCommands.map((c) => `${c.command} ${c.ms} ms`).join(', ');
  return `Redis: longest stalls ${stalls.events.map((s) => `${s.event} ${s.maxMs} ms`).join(', ')}${slow ? `; slowest commands ${slow}` : ''}`;
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
