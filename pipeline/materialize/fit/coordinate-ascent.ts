/**
 * The last step of the fit: the logit's weights (conditional-logit.ts) make the hidden follows
 * likely among all their profiles' candidates, but a list is judged by its head. Coordinate
 * ascent (Metzler and Croft, 2007; RankLib's CoordinateAscent) moves one weight at a time
 * while that puts more hidden follows in the first places of their profiles' lists, counted
 * on the same choice groups: a row's place is how many of its group's other rows (each
 * standing for `counts` candidates) score higher.
 */
import type { ChoiceGroup } from './conditional-logit.ts';

/**
 * The places a hidden follow counts in: the first 10 twice (a list's first page is what people
 * see), the first 50 once.
 */
export const JUDGED_PLACES = [10, 10, 50];

const STEPS = [0.1, 0.3, 1, 3];
const SWEEPS = 2;

export function ascendToHits(groups: readonly ChoiceGroup[], start: readonly number[], frozen: ReadonlySet<number> = new Set()): { weights: number[]; hits: number } {
  const k = start.length;
  const weights = [...start];
  const scores = groups.map((g) => {
    const out = new Float64Array(g.counts.length);
    for (let j = 0; j < out.length; j++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += weights[i]! * g.rows[j * k + i]!;
      out[j] = s;
    }
    return out;
  });
  const positives = groups.reduce((n, g) => n + g.chosen, 0);
  let current: Uint8Array = new Uint8Array(positives);
  let best = hitsOf(groups, scores, current);
  const trial = new Uint8Array(positives);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    let improved = false;
    for (let f = 0; f < k; f++) {
      if (frozen.has(f) || !varies(groups, f, k)) continue;
      let bestDelta = 0;
      let bestHits: Uint8Array | undefined;
      for (const step of STEPS) {
        for (const delta of [step, -step]) {
          const hits = hitsOf(groups, scores, trial, { feature: f, delta, k });
          // A move must gain more than chance could (a sign test at about 95 %), so that a
          // small sample's noise does not steer the weights.
          if (hits > best && beyondChance(current, trial)) {
            best = hits;
            bestDelta = delta;
            bestHits = Uint8Array.from(trial);
          }
        }
      }
      if (bestHits) current = bestHits;
      if (bestDelta !== 0) {
        shift(groups, scores, f, bestDelta, k);
        weights[f]! += bestDelta;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return { weights, hits: best };
}

/**
 * Hidden follows in the judged places of their lists, summed over the places (so both the
 * first page and the second count); `each` gets every hidden follow's count.
 */
export function hitsOf(groups: readonly ChoiceGroup[], scores: readonly Float64Array[], each: Uint8Array, move?: { feature: number; delta: number; k: number }): number {
  let hits = 0;
  let at = 0;
  const f = move?.feature ?? 0;
  const delta = move?.delta ?? 0;
  const k = move?.k ?? 1;
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi]!;
    const s = scores[gi]!;
    const rows = g.rows;
    for (let c = 0; c < g.chosen; c++) {
      // The scores as they would be with the weight of `move.feature` moved by `move.delta`.
      const own = s[c]! + delta * rows[c * k + f]!;
      let place = 0;
      for (let j = g.chosen; j < s.length; j++) if (s[j]! + delta * rows[j * k + f]! > own) place += g.counts[j]!;
      let mine = 0;
      for (const limit of JUDGED_PLACES) if (place < limit) mine++;
      each[at++] = mine;
      hits += mine;
    }
  }
  return hits;
}

/** Whether `after` gains on `before` by more than twice the square root of all changes. */
function beyondChance(before: Uint8Array, after: Uint8Array): boolean {
  let gained = 0;
  let lost = 0;
  for (let i = 0; i < before.length; i++) {
    const d = after[i]! - before[i]!;
    if (d > 0) gained += d;
    else lost -= d;
  }
  return gained - lost > 2 * Math.sqrt(gained + lost);
}

function shift(groups: readonly ChoiceGroup[], scores: Float64Array[], f: number, delta: number, k: number): void {
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi]!;
    const s = scores[gi]!;
    for (let j = 0; j < s.length; j++) s[j]! += delta * g.rows[j * k + f]!;
  }
}

function varies(groups: readonly ChoiceGroup[], f: number, k: number): boolean {
  for (const g of groups) for (let j = 0; j < g.counts.length; j++) if (g.rows[j * k + f] !== 0) return true;
  return false;
}

/** Chosen rows that `weights` place within the first `places` of their groups. */
export function hitsWithin(groups: readonly ChoiceGroup[], weights: readonly number[], places: number): number {
  const k = weights.length;
  let hits = 0;
  for (const g of groups) {
    const n = g.counts.length;
    const scores = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += weights[i]! * g.rows[j * k + i]!;
      scores[j] = s;
    }
    for (let c = 0; c < g.chosen; c++) {
      let place = 0;
      for (let j = g.chosen; j < n; j++) if (scores[j]! > scores[c]!) place += g.counts[j]!;
      if (place < places) hits++;
    }
  }
  return hits;
}
