/**
 * The GC pauses of this isolate from now until `stop` (PerformanceObserver 'gc' entries),
 * in ms rounded to 0.1: how many, how long in all, the longest. The bench's servers and its
 * load generator both report them, to tell their own stalls from the machine's.
 */
import { PerformanceObserver } from 'node:perf_hooks';

export interface GcPauses {
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

export function watchGcPauses(): { stop(): GcPauses; totalMsSoFar(): number } {
  let count = 0;
  let totalMs = 0;
  let maxMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      count++;
      totalMs += entry.duration;
      maxMs = Math.max(maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    /** Pauses are reported after they end, in a later turn: a window may see one late. */
    totalMsSoFar: () => totalMs,
    stop() {
      observer.disconnect();
      return { gcCount: count, gcTotalMs: round(totalMs), gcMaxMs: round(maxMs) };
    },
  };
}
