/**
 * The messages between the bench and a server it runs in a child process
 * (bench/server-process.ts on the bench's side, bench/server-process-child.ts on the
 * server's). Each request carries an id that its reply repeats.
 */
import type { GcPauses } from './gc-pauses.ts';

/** Bench to server. */
export type ToServer =
  | { type: 'start'; id: number; options: unknown }
  | { type: 'profile-start'; id: number }
  | { type: 'profile-stop'; id: number; file: string }
  | { type: 'memory'; id: number }
  | { type: 'pauses-start'; id: number }
  | { type: 'pauses-stop'; id: number };

/** What held the server's event loop during a run: its GC pauses and the loop's delay. */
export interface ServerPauses extends GcPauses {
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /**
   * The run in 100 ms windows, to line up with the load generator's slowest stretches;
   * absent from the child of a checkout older than them (BENCH_COMPARE).
   */
  windows?: ServerWindow[];
}

/** What the server did in one 100 ms window. */
export interface ServerWindow {
  /** When the window ended (ms since the epoch). */
  endEpochMs: number;
  /** Share of the window the event loop was busy (event-loop utilization), in %. */
  busyPct: number;
  /** Share of the window the process had a core (all its threads), in %. */
  cpuPct: number;
  /** GC pauses that ended in the window, ms in all. */
  gcMs: number;
  /** How late the window's own timer fired: the longest the loop could not turn. */
  lateMs: number;
  /**
   * The whole machine in the window (/proc/stat, all cores): the share of its cores' time
   * that was busy, and the share the hypervisor gave to others (steal), in %. Absent from
   * an older compared checkout's child, and where /proc/stat cannot be read.
   */
  machineBusyPct?: number;
  machineStealPct?: number;
}

/** Server to bench. */
export type FromServer =
  | { type: 'listening'; id: number; port: number }
  | { type: 'done'; id: number; value?: unknown }
  | { type: 'failed'; id: number; message: string };
