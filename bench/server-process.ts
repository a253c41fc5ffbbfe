/**
 * A server under test in a child process of its own (`node --import tsx <entry>` with the
 * bench's server flags), started with options sent over IPC. The bench reads the child's CPU
 * time from /proc and asks it for CPU profiles and its heap size over IPC; `stop` ends it
 * with SIGTERM (SIGKILL if it does not exit in time). The child also exits by itself when
 * the bench goes away (bench/server-process-child.ts).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { FromServer, ServerPauses, ToServer } from './server-process-messages.ts';

export interface ServerProcess {
  pid: number;
  port: number;
  /** CPU time so far of the child's main thread and of the whole child, in µs. */
  cpuUs(): { mainThread: number; process: number };
  startCpuProfile(): Promise<void>;
  stopCpuProfile(file: string): Promise<void>;
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  /** Starts watching the child's GC pauses and event-loop delay; the returned function stops and reports. */
  watchPauses(): Promise<() => Promise<ServerPauses>>;
  stop(): Promise<void>;
}

/** Distributes ToServer's variants over Omit, so each keeps its own fields. */
type Request = ToServer extends infer M ? (M extends ToServer ? Omit<M, 'id'> : never) : never;

const STOP_GRACE_MS = 10_000;

export async function startServerProcess(entry: URL, nodeFlags: string[], options: unknown): Promise<ServerProcess> {
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, { resolve(message: FromServer): void; reject(error: Error): void }>();
  let nextId = 1;
  child.on('message', (message: FromServer) => {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.type === 'failed') waiting.reject(new Error(`${entry.pathname}: ${message.message}`));
    else waiting.resolve(message);
  });
  child.once('exit', (code, signal) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${entry.pathname} exited (${signal ?? code}) before answering`));
    pending.clear();
  });
  const ask = (request: Request): Promise<FromServer> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id } as ToServer, (error) => {
        if (!error) return;
        pending.delete(id);
        reject(error);
      });
    });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };

  let started: FromServer;
  try {
    started = await ask({ type: 'start', options });
  } catch (error) {
    await stop();
    throw error;
  }
  if (started.type !== 'listening') {
    await stop();
    throw new Error(`${entry.pathname} answered ${started.type} to start`);
  }
  const pid = child.pid!;
  return {
    pid,
    port: started.port,
    cpuUs: () => ({ mainThread: statCpuUs(`/proc/${pid}/task/${pid}/stat`), process: statCpuUs(`/proc/${pid}/stat`) }),
    startCpuProfile: async () => void (await ask({ type: 'profile-start' })),
    stopCpuProfile: async (file) => void (await ask({ type: 'profile-stop', file })),
    memoryUsage: async () => ((await ask({ type: 'memory' })) as { value: NodeJS.MemoryUsage }).value,
    async watchPauses() {
      await ask({ type: 'pauses-start' });
      return async () => ((await ask({ type: 'pauses-stop' })) as { value: ServerPauses }).value;
    },
    stop,
  };
}

/** utime + stime from a /proc stat file: of one thread (task/<tid>/stat) or of all of a process's threads (<pid>/stat). */
export function statCpuUs(file: string): number {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from the state field (3).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;
