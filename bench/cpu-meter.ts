/**
 * CPU time spent during a run, per request: the server under test (its own child process,
 * bench/server-process.ts: its main thread, and its other threads — GC helpers, libuv's
 * pool, the API's encryption worker), the bench's process (the load generator's thread and
 * the bench's idle main thread), and Redis. Throughput on a shared 2-core machine moves
 * with whatever else runs; CPU per request moves much less, so it tells whether a change
 * made a request cheaper.
 */
import type { Redis } from 'ioredis';
import type { ServerProcess } from './server-process.ts';

export interface CpuPerRequest {
  serverMainThreadUs: number;
  serverOtherThreadsUs: number;
  benchProcessUs: number;
  redisUs: number;
  /**
   * Read events Redis processed per request: under 1 when one read carries the commands of
   * several requests (many in flight), near the number of separate writes a request makes
   * when they come one at a time.
   */
  redisReads: number;
}

export interface CpuMeter {
  /** Call when the run ends, with the number of requests answered. */
  stop(requests: number): Promise<CpuPerRequest>;
}

export async function startCpuMeter(redis: Redis, server: Pick<ServerProcess, 'cpuUs'>): Promise<CpuMeter> {
  const server0 = server.cpuUs();
  const bench0 = benchProcessCpuUs();
  const redis0 = await redisCounters(redis);
  return {
    async stop(requests) {
      const serverNow = server.cpuUs();
      const bench = benchProcessCpuUs() - bench0;
      const redisNow = await redisCounters(redis);
      const redisUs = redisNow.cpuUs - redis0.cpuUs;
      // Less the meter's own INFO, which Redis counts before answering it.
      const reads = redisNow.reads - redis0.reads - 1;
      const main = serverNow.mainThread - server0.mainThread;
      const all = serverNow.process - server0.process;
      const per = (us: number) => Math.round(us / Math.max(1, requests));
      return {
        serverMainThreadUs: per(main),
        serverOtherThreadsUs: per(all - main),
        benchProcessUs: per(bench),
        redisUs: per(redisUs),
        redisReads: Math.round((reads / Math.max(1, requests)) * 100) / 100,
      };
    },
  };
}

export function formatCpu(cpu: CpuPerRequest): string {
  return (
    `CPU per request: server process main thread ${cpu.serverMainThreadUs} µs, its other threads ${cpu.serverOtherThreadsUs} µs; ` +
    `bench process (load generator) ${cpu.benchProcessUs} µs; Redis ${cpu.redisUs} µs, ${cpu.redisReads} reads`
  );
}

function benchProcessCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Redis's CPU time so far (µs) and the read events it has processed, from one INFO (several sections: Redis 7). */
async function redisCounters(redis: Redis): Promise<{ cpuUs: number; reads: number }> {
  const info = (await redis.call('INFO', 'cpu', 'stats')) as string;
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return { cpuUs: (field('used_cpu_sys') + field('used_cpu_user')) * 1_000_000, reads: field('total_reads_processed') };
}
