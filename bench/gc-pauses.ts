/**
 * The GC pauses of this isolate from now until `stop` (PerformanceObserver 'gc' entries),
 * in ms rounded to 0.1: how many, how long in all, the longest. The bench's servers and its
 * load generator both report them, to tell their own stalls from the machine's.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

export interface GcPauses {
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
  /**
   * The longest pause's kind, and the mark-compact (major) pauses: the long ones grow with
   * the live heap. Absent from the child of a checkout older than them (BENCH_COMPARE).
   */
  gcMaxKind?: string;
  gcMajorCount?: number;
  gcMajorMs?: number;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** The bench's millisecond figures, to 0.1 ms. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

export function watchGcPauses(): { stop(): GcPauses; totalMsSoFar(): number } {
  let count = 0;
  let totalMs = 0;
  let maxMs = 0;
  let maxKind = '';
  let majorCount = 0;
  let majorMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      count++;
      totalMs += entry.duration;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        majorCount++;
        majorMs += entry.duration;
      }
      if (entry.duration > maxMs) {
        maxMs = entry.duration;
        maxKind = GC_KINDS[kind] ?? `kind ${kind}`;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    /** Pauses are reported after they end, in a later turn: a window may see one late. */
    totalMsSoFar: () => totalMs,
    stop() {
      observer.disconnect();
      return { gcCount: count, gcTotalMs: roundMs(totalMs), gcMaxMs: roundMs(maxMs), gcMaxKind: maxKind, gcMajorCount: majorCount, gcMajorMs: roundMs(majorMs) };
    },
  };
}
