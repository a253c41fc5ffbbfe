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
  /** Of `redisUs`, the time Redis spent executing scripts, which is all the API sends it on recommend's path (the rest is reading, writing, waiting). */
  redisScriptsUs: number;
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
      const redisScriptsUs = redisNow.scriptsUs - redis0.scriptsUs;
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
        redisScriptsUs: per(redisScriptsUs),
        redisReads: Math.round((reads / Math.max(1, requests)) * 100) / 100,
      };
    },
  };
}

export function formatCpu(cpu: CpuPerRequest): string {
  return (
    `CPU per request: server process main thread ${cpu.serverMainThreadUs} µs, its other threads ${cpu.serverOtherThreadsUs} µs; ` +
    `bench process (load generator) ${cpu.benchProcessUs} µs; Redis ${cpu.redisUs} µs (${cpu.redisScriptsUs} µs of it executing scripts), ${cpu.redisReads} reads`
  );
}

function benchProcessCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Redis's CPU time so far (µs), the read events it has processed, and the time its scripts
 * took to execute, from one INFO (several sections: Redis 7). The commands a script runs
 * have their own commandstats lines too, and their time is already in the script's.
 */
async function redisCounters(redis: Redis): Promise<{ cpuUs: number; reads: number; scriptsUs: number }> {
  const info = (await redis.call('INFO', 'cpu', 'stats', 'commandstats')) as string;
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  let scriptsUs = 0;
  for (const [, command, usec] of info.matchAll(/^cmdstat_(\w+):calls=\d+,usec=(\d+)/gm)) {
    if (SCRIPT_COMMANDS.has(command!)) scriptsUs += Number(usec);
  }
  return { cpuUs: (field('used_cpu_sys') + field('used_cpu_user')) * 1_000_000, reads: field('total_reads_processed'), scriptsUs };
}

/** The page and the rate-limit count are both scripts. */
const SCRIPT_COMMANDS = new Set(['evalsha', 'eval']);
