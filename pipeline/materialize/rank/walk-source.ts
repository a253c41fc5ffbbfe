/**
 * Personalized PageRank from a profile p: where random walks along follows end up when each
 * step restarts at p with probability RESTART, approximated by forward push (Andersen, Chung
 * and Lang, FOCS'06) within a budget of follows read. Unlike the path sources it reaches
 * beyond two hops, and it weighs a candidate by every walk that reaches it: the source of
 * Twitter's who-to-follow (Gupta et al., WWW'13) and of Pinterest's Pixie.
 *
 * The walks' best `WALK_CANDIDATES` become candidates of their own; the others only add the
 * walks feature to candidates another source found.
 */
import type { FollowGraph } from '../graph/follow-graph.ts';
import { NO_SLOT, type CandidateTable } from './candidate-table.ts';
import { F } from './features.ts';
import type { OwnFacts } from './own-facts.ts';

const RESTART = 0.15;
/** A node is pushed once it holds more than this much residual per follow it makes. */
const EPSILON = 1e-5;
/** Candidates the walks add on their own. */
export const WALK_CANDIDATES = 100;

/** One thread's push state, reused for every profile. */
export class WalkScratch {
  readonly residual: Float64Array;
  readonly estimate: Float64Array;
  private readonly queuedAt: Uint32Array;
  private readonly touchedAt: Uint32Array;
  private queue: Uint32Array;
  private touched: Uint32Array;
  private masses = new Float64Array(1024);
  private sortedMasses = new Float64Array(1024);
  private touchedCount = 0;
  private epoch = 0;

  constructor(nodes: number) {
    this.residual = new Float64Array(nodes);
    this.estimate = new Float64Array(nodes);
    this.queuedAt = new Uint32Array(nodes);
    this.touchedAt = new Uint32Array(nodes);
    this.queue = new Uint32Array(1024);
    this.touched = new Uint32Array(1024);
  }

  /**
   * Pushes from p until no node holds enough residual or `budget` follows were read; adds the
   * walks feature to the table (p's excluded profiles are never added).
   */
  walkFrom(g: FollowGraph, own: OwnFacts, budget: number, table: CandidateTable): void {
    this.begin();
    const { offsets, targets } = g.out;
    // Walks from someone who follows nobody go nowhere.
    if (own.followees.length === 0) return;
    const residual = this.residual;
    const estimate = this.estimate;
    let head = 0;
    let tail = 0;
    let read = 0;
    // The first step, from p's own follows (which the world may not hold yet, for a newcomer).
    const p = own.profile;
    const first = (1 - RESTART) / own.followees.length;
    read += own.followees.length;
    for (const f of own.followees) {
      this.touch(f);
      residual[f]! += first;
      if (this.queuedAt[f] !== this.epoch) tail = this.enqueue(f, tail);
    }
    while (head < tail && read < budget) {
      const v = this.queue[head++]!;
      this.queuedAt[v] = 0;
      const r = residual[v]!;
      residual[v] = 0;
      estimate[v]! += RESTART * r;
      const start = offsets[v]!;
      const end = offsets[v + 1]!;
      // A walk at someone who follows nobody ends there (a small share of the whole); one who
      // follows more than the budget has left keeps its mass (it spreads it too thin to tell).
      if (end === start || end - start > budget - read) {
        residual[v] = r;
        estimate[v]! -= RESTART * r;
        continue;
      }
      const share = ((1 - RESTART) * r) / (end - start);
      read += end - start;
      for (let i = start; i < end; i++) {
        const t = targets[i]!;
        // A walk back at p starts again: p's own first step is the one above.
        if (t === p) continue;
        if (this.touchedAt[t] !== this.epoch) this.touch(t);
        const next = (residual[t]! += share);
        if (this.queuedAt[t] !== this.epoch && next > EPSILON * Math.max(1, offsets[t + 1]! - offsets[t]!)) tail = this.enqueue(t, tail);
      }
      if (head > 4096 && head === tail) head = tail = 0;
    }
    this.addTo(table);
  }

  /**
   * Sets the walks feature of the candidates the walks reached: the WALK_CANDIDATES with the
   * most mass become candidates of their own (found by selection, not a sort of all reached),
   * the others only where another source made them candidates.
   */
  private addTo(table: CandidateTable): void {
    const count = this.touchedCount;
    if (this.masses.length < count) this.masses = new Float64Array(count * 2);
    // Cleared here rather than on the next walk: the loop below reuses `touched` for the reached.
    this.touchedCount = 0;
    const masses = this.masses;
    const touched = this.touched;
    let reached = 0;
    for (let i = 0; i < count; i++) {
      const v = touched[i]!;
      const mass = this.estimate[v]! + RESTART * this.residual[v]!;
      this.estimate[v] = 0;
      this.residual[v] = 0;
      if (mass > 0 && !table.isExcluded(v)) {
        touched[reached] = v;
        masses[reached++] = mass;
      }
    }
    // touched now holds the reached candidates first; the rest are cleared on the next walk anyway.
    const sorted = this.sortedMasses.length < reached ? (this.sortedMasses = new Float64Array(reached * 2)) : this.sortedMasses;
    sorted.set(masses.subarray(0, reached));
    const threshold = reached > WALK_CANDIDATES ? kthLargest(sorted, reached, WALK_CANDIDATES) : 0;
    let taken = 0;
    for (let i = 0; i < reached; i++) {
      const v = touched[i]!;
      const mass = masses[i]!;
      // Nodes tied at the threshold are taken in the order the walks reached them.
      const own = mass > threshold || (mass === threshold && taken < WALK_CANDIDATES);
      const slot = own ? table.slot(v) : table.existingSlot(v);
      if (own) taken++;
      if (slot !== NO_SLOT) table.set(slot, F.walks, mass);
    }
  }

  private begin(): void {
    for (let i = 0; i < this.touchedCount; i++) {
      const v = this.touched[i]!;
      this.residual[v] = 0;
      this.estimate[v] = 0;
    }
    this.touchedCount = 0;
    this.epoch++;
  }

  private touch(v: number): void {
    this.touchedAt[v] = this.epoch;
    if (this.touchedCount === this.touched.length) {
      const grown = new Uint32Array(this.touched.length * 2);
      grown.set(this.touched);
      this.touched = grown;
    }
    this.touched[this.touchedCount++] = v;
  }

  private enqueue(v: number, tail: number): number {
    if (tail === this.queue.length) {
      const grown = new Uint32Array(this.queue.length * 2);
      grown.set(this.queue);
      this.queue = grown;
    }
    this.queue[tail] = v;
    this.queuedAt[v] = this.epoch;
    return tail + 1;
  }
}

/** The k-th largest of values[0..count) (reorders them): Hoare's quickselect. */
function kthLargest(values: Float64Array, count: number, k: number): number {
  let left = 0;
  let right = count - 1;
  const target = k - 1;
  while (left < right) {
    const pivot = values[(left + right) >>> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) right = j;
    else if (target >= i) left = i;
    else break;
  }
  return values[target]!;
}
