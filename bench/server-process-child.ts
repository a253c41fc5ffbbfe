/**
 * The child's side of bench/server-process.ts: waits for the bench's `start` message, starts
 * the server with its options, reports the port, then answers the bench's requests (CPU
 * profile, heap size) until it is told to stop (SIGTERM) or the bench goes away.
 *
 * Why a child process at all: a server on the bench's own main thread shares its heap with
 * the world the bench generated and ingested, and its GC pauses and CPU with the bench's
 * orchestration; in a process of its own each server has a small, clean heap, and the
 * baseline and the API run under the same conditions.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { roundMs, watchGcPauses } from './gc-pauses.ts';
import type { FromServer, ServerPauses, ServerWindow, ToServer } from './server-process-messages.ts';

export interface ServerUnderBench {
  port: number;
  close(): Promise<void>;
}

export function serveUnderBench(start: (options: unknown) => Promise<ServerUnderBench>): void {
  if (!process.send) throw new Error('a bench server runs as a child of the bench (bench/server-process.ts), with an IPC channel');
  const send = (message: FromServer) => process.send!(message);
  let server: ServerUnderBench | undefined;
  let profiler: Session | undefined;
  let pauses: { stop(): ServerPauses } | undefined;

  const handle = async (message: ToServer): Promise<void> => {
    switch (message.type) {
      case 'start':
        server = await start(message.options);
        send({ type: 'listening', id: message.id, port: server.port });
        return;
      case 'profile-start':
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
        send({ type: 'done', id: message.id });
        return;
      case 'profile-stop': {
        if (!profiler) throw new Error('no CPU profile running');
        const { profile } = await profiler.post('Profiler.stop');
        profiler.disconnect();
        profiler = undefined;
        await mkdir(dirname(message.file), { recursive: true });
        await writeFile(message.file, JSON.stringify(profile));
        send({ type: 'done', id: message.id });
        return;
      }
      case 'memory':
        send({ type: 'done', id: message.id, value: process.memoryUsage() });
        return;
      case 'pauses-start':
        pauses = watchPauses();
        send({ type: 'done', id: message.id });
        return;
      case 'pauses-stop': {
        if (!pauses) throw new Error('no pause watch running');
        send({ type: 'done', id: message.id, value: pauses.stop() });
        pauses = undefined;
        return;
      }
    }
  };
  process.on('message', (message: ToServer) => {
    handle(message).catch((error: unknown) => send({ type: 'failed', id: message.id, message: (error as Error).stack ?? String(error) }));
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await server?.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void stop());
  // Ctrl-C reaches the whole process group; the bench decides when its servers stop.
  process.on('SIGINT', () => {});
  // The bench died without stopping us (killed, crashed): no server outlives it.
  process.on('disconnect', () => void stop());
}

/**
 * GC pauses (PerformanceObserver 'gc' entries) and event-loop delay (sampled every 1 ms)
 * from now until `stop`: whether a slow answer was the server's own stall.
 */
function watchPauses(): { stop(): ServerPauses } {
  const gc = watchGcPauses();
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const windows = watchWindows(gc);
  return {
    stop() {
      delay.disable();
      return {
        ...gc.stop(),
        loopDelayP99Ms: roundMs(delay.percentile(99) / 1e6),
        loopDelayMaxMs: roundMs(delay.max / 1e6),
        windows: windows.stop(),
      };
    },
  };
}

const WINDOW_MS = 100;

/**
 * The run in 100 ms windows: event-loop utilization, CPU share, GC and how late the window's
 * timer fired, and what the whole machine did meanwhile (busy and stolen shares).
 */
function watchWindows(gc: { totalMsSoFar(): number }): { stop(): ServerWindow[] } {
  const windows: ServerWindow[] = [];
  let due = performance.now() + WINDOW_MS;
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  let gcMs = gc.totalMsSoFar();
  let machine = machineTicks();
  const timer = setInterval(() => {
    const now = performance.now();
    const eluNow = performance.eventLoopUtilization();
    const cpuNow = process.cpuUsage();
    const gcNow = gc.totalMsSoFar();
    const machineNow = machineTicks();
    const elapsedMs = WINDOW_MS + Math.max(0, now - due);
    windows.push({
      endEpochMs: Math.round(performance.timeOrigin + now),
      busyPct: Math.round(performance.eventLoopUtilization(eluNow, elu).utilization * 100),
      cpuPct: Math.round(((cpuNow.user - cpu.user + cpuNow.system - cpu.system) / 1000 / elapsedMs) * 100),
      gcMs: roundMs(gcNow - gcMs),
      lateMs: roundMs(Math.max(0, now - due)),
      ...machineShares(machine, machineNow),
    });
    [elu, cpu, gcMs, due, machine] = [eluNow, cpuNow, gcNow, now + WINDOW_MS, machineNow];
  }, WINDOW_MS);
  return {
    stop() {
      clearInterval(timer);
      return windows;
    },
  };
}

interface MachineTicks {
  total: number;
  idle: number;
  steal: number;
}

/** The machine's CPU time so far, all cores, in clock ticks (/proc/stat's first line); undefined off Linux. */
function machineTicks(): MachineTicks | undefined {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'latin1').slice(0, 200).split('\n', 1)[0]!;
  } catch {
    return undefined;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is
  // already counted in user and nice)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
  return { total: user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!, idle: idle! + iowait!, steal: steal! };
}

function machineShares(before: MachineTicks | undefined, after: MachineTicks | undefined): Pick<ServerWindow, 'machineBusyPct' | 'machineStealPct'> {
  if (!before || !after || after.total === before.total) return {};
  const total = after.total - before.total;
  return {
    machineBusyPct: Math.round(((total - (after.idle - before.idle) - (after.steal - before.steal)) / total) * 100),
    machineStealPct: Math.round(((after.steal - before.steal) / total) * 100),
  };
}
