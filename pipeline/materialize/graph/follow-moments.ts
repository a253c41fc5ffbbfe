/**
 * When each follow was made, counted in follows rather than seconds: a follow's moment is
 * 2000 × (follows made before it + half of those made at the same time) / all follows, so 0
 * is the earliest, 1000 the median and 2000 the newest. One rule then serves a history of
 * weeks and one of years (rank/path-sources.ts weighs paths by it). A graph without times
 * (every follow at 0) has every moment at 1000, and every path weighs alike.
 */
import type { FollowGraph } from './follow-graph.ts';

export const LAST_MOMENT = 2000;

export interface FollowMoments {
  /** Each follow's moment, beside graph.out.targets (0..LAST_MOMENT). */
  outMoments: Uint16Array;
  /** The time at which each moment begins (LAST_MOMENT + 1 of them): a newer follow's moment, read by momentAt. */
  starts: Uint32Array;
}

/** The moment of a follow made at `time` (one newer than every follow of the world: LAST_MOMENT). */
export function momentAt(moments: FollowMoments, time: number): number {
  let low = 0;
  let high = moments.starts.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (moments.starts[mid]! <= time) low = mid + 1;
    else high = mid;
  }
  return Math.max(0, low - 1);
}

export function followMoments(g: FollowGraph, shared = false): FollowMoments {
  const times = g.outTimes;
  const m = times.length;
  const outMoments = shared ? new Uint16Array(new SharedArrayBuffer(Math.max(2, m * 2)), 0, m) : new Uint16Array(m);
  const order = byTime(times);
  // Walk the follows oldest first, a run of equal times at once.
  for (let start = 0; start < m; ) {
    const t = times[order[start]!]!;
    let end = start + 1;
    while (end < m && times[order[end]!] === t) end++;
    const moment = Math.round((LAST_MOMENT * (start + (end - start) / 2)) / m);
    for (let i = start; i < end; i++) outMoments[order[i]!] = moment;
    start = end;
  }
  // The time each moment begins at: the earliest follow placed at it or later.
  const starts = new Uint32Array(LAST_MOMENT + 1).fill(0xffffffff);
  for (let i = m - 1; i >= 0; i--) {
    const e = order[i]!;
    starts[outMoments[e]!] = times[e]!;
  }
  for (let k = LAST_MOMENT - 1; k >= 0; k--) starts[k] = Math.min(starts[k]!, starts[k + 1]!);
  return { outMoments, starts };
}

/** The follows' positions ordered by time: a radix sort on 16 bits at a time, linear in follows. */
function byTime(times: Uint32Array): Uint32Array {
  let order = new Uint32Array(times.length);
  let next = new Uint32Array(times.length);
  for (let i = 0; i < times.length; i++) order[i] = i;
  for (const shift of [0, 16]) {
    const counts = new Uint32Array(65_537);
    for (let i = 0; i < times.length; i++) counts[((times[i]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 0; d < 65_536; d++) counts[d + 1]! += counts[d]!;
    for (let i = 0; i < order.length; i++) {
      const e = order[i]!;
      next[counts[(times[e]! >>> shift) & 0xffff]!++] = e;
    }
    [order, next] = [next, order];
  }
  return order;
}
