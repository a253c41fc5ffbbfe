/**
 * CPU time spent during a run, per request: this process's main thread (the server under
 * test), the rest of this process (the load generator's thread, GC helpers), and Redis.
 * Throughput on a shared 2-core machine moves with whatever else runs; CPU per request
 * moves much less, so it tells whether a change made a request cheaper.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

export interface CpuPerRequest {
  mainThreadUs: number;
  restOfProcessUs: number;
  redisUs: number;
}

export interface CpuMeter {
  /** Call when the run ends, with the number of requests answered. */
  stop(requests: number): Promise<CpuPerRequest>;
}

export async function startCpuMeter(redis: Redis): Promise<CpuMeter> {
  const main0 = mainThreadCpuUs();
  const process0 = processCpuUs();
  const redis0 = await redisCpuUs(redis);
  return {
    async stop(requests) {
      const main = mainThreadCpuUs() - main0;
      const all = processCpuUs() - process0;
      const redisUs = (await redisCpuUs(redis)) - redis0;
      const per = (us: number) => Math.round(us / Math.max(1, requests));
      return { mainThreadUs: per(main), restOfProcessUs: per(all - main), redisUs: per(redisUs) };
    },
  };
}

export function formatCpu(cpu: CpuPerRequest): string {
  return `CPU per request: main thread ${cpu.mainThreadUs} µs, rest of the process ${cpu.restOfProcessUs} µs, Redis ${cpu.redisUs} µs`;
}

/** utime + stime of the main thread (its task id is the process id), from /proc. */
function mainThreadCpuUs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5), counted from the state field (3).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

function processCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function redisCpuUs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1_000_000;
}
