/**
 * A process that should take only the CPU others leave (ingestion beside the API,
 * WORKERS_NICE in shared/config.ts) raises its nice value. On Linux a nice value belongs to
 * a thread, and threads started before the call (V8's, libuv's) keep theirs, so every
 * thread in /proc/self/task is lowered; threads started later inherit it. Elsewhere only
 * the process's main thread is.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

/** Raises every thread's nice value to `nice` (never lowers one: that needs privileges). */
export function lowerCpuPriority(nice: number): void {
  if (nice <= 0) return;
  for (const id of threadIds()) {
    try {
      if (os.getPriority(id) < nice) os.setPriority(id, nice);
    } catch (error) {
      // A thread that ended between the listing and the call.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [process.pid];
  }
}
