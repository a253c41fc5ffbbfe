/**
 * Each run fits the ranking model's weights to its own graph: its profiles' newest follows
 * are hidden (held-out-follows.ts), the ranker collects each sampled profile's candidates on
 * what is left, exactly as it does for a list, and the weights under which the hidden follows
 * are the likeliest picks among those candidates are kept (conditional-logit.ts). A graph
 * where following back is the rule learns to list followers first; one where follows are
 * seldom returned, to list friends' follows first.
 *
 * With fewer than MIN_FOUND hidden follows among their profiles' candidates, the run keeps
 * the default weights (ranking-model.ts).
 */
import { mix32 } from '../../generate/random.ts';
import { FEATURE_COUNT, transformed } from '../rank/features.ts';
import { Ranker, type RankSettings, type RankWorld } from '../rank/ranker.ts';
import { DEFAULT_MODEL, scoreOf, type RankingModel } from '../rank/ranking-model.ts';
import { fitConditionalLogit, type ChoiceGroup } from './conditional-logit.ts';
import { heldOutFollows } from './held-out-follows.ts';
import { ascendToHits, hitsWithin } from './coordinate-ascent.ts';

/** Follows a fit hides at most (where profiles follow many, fewer profiles than asked are sampled): plenty for a dozen weights. */
const MAX_HELD_OUT = 10_000;
/** Hidden follows found among their profiles' candidates that a fit needs. */
export const MIN_FOUND = 100;
/** Alternatives to a profile's next follows: its best candidates under the default weights, and a sample of the rest. */
const HARD_ALTERNATIVES = 100;
const SAMPLED_ALTERNATIVES = 100;
/** Hidden follows the coordinate ascent counts places of (its cost grows with them; the sign test keeps it from chasing noise). */
const ASCENT_FOLLOWS = 10_000;
/** How strongly the logit's weights are drawn towards the defaults. */
const PRIOR_STRENGTH = 5;
/** The first places where the report counts a hidden follow as found. */
export const FIT_PLACES = 50;

export interface FitReport {
  model: RankingModel;
  /** Profiles sampled, and the follows they hid. */
  profiles: number;
  heldOut: number;
  /** Hidden follows among their profiles' candidates (what any weights can find). */
  candidates: number;
  /** Hidden follows in their profile's first FIT_PLACES under the default weights, and under the fitted ones. */
  foundByDefault: number;
  foundByFitted: number;
  seconds: number;
}

export function fitModel(world: RankWorld, settings: RankSettings, sampleSize: number): FitReport {
  const started = performance.now();
  const held = heldOutFollows(world.follows, sampleSize, MAX_HELD_OUT, world.moments);
  const ranker = new Ranker({ ...world, follows: held.graph, ...(held.moments ? { moments: held.moments } : {}) }, settings);
  const groups: ChoiceGroup[] = [];
  for (const [p, hidden] of held.heldOut) {
    const group = choiceGroup(ranker, p, hidden, DEFAULT_MODEL.weights);
    if (group) groups.push(group);
  }
  const found = groups.reduce((n, g) => n + g.chosen, 0);
  let model: RankingModel = DEFAULT_MODEL;
  if (found >= MIN_FOUND) {
    const likely = fitConditionalLogit(groups, DEFAULT_MODEL.weights, PRIOR_STRENGTH).weights;
    model = { weights: ascendToHits(upTo(groups, ASCENT_FOLLOWS), likely).weights, source: 'fitted' };
  }
  return {
    model,
    profiles: held.heldOut.size,
    heldOut: held.count,
    candidates: found,
    foundByDefault: hitsWithin(groups, DEFAULT_MODEL.weights, FIT_PLACES),
    foundByFitted: hitsWithin(groups, model.weights, FIT_PLACES),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * p's candidates on the fit's graph as a choice among them; undefined when none of its hidden
 * follows is among them. The alternatives: the HARD_ALTERNATIVES best under `first` weights
 * (the competition a next follow must beat to reach the head of a list), and a fixed sample of
 * the rest, each standing for its share of them.
 */
function choiceGroup(ranker: Ranker, p: number, hidden: readonly number[], first: readonly number[]): ChoiceGroup | undefined {
  const table = ranker.collect(p);
  const wanted = new Set(hidden);
  const chosen: number[] = [];
  const others: number[] = [];
  for (let s = 0; s < table.size; s++) (wanted.has(table.candidate[s]!) ? chosen : others).push(s);
  if (chosen.length === 0) return undefined;
  // The hard ones: the best under `first` (a selection, not a sort of every candidate).
  const score = Float64Array.from(others, (s) => scoreOf(first, table.features, s * FEATURE_COUNT));
  const hard = best(others, score, HARD_ALTERNATIVES);
  const isHard = new Set(hard);
  const rest = others.filter((s) => !isHard.has(s));
  // A fixed sample of the rest: those whose hash (of the candidate and p) is smallest.
  const hash = Float64Array.from(rest, (s) => -mix32(table.candidate[s]! ^ p));
  const sampled = best(rest, hash, SAMPLED_ALTERNATIVES);
  const count = sampled.length > 0 ? rest.length / sampled.length : 1;
  const slots = [...chosen, ...hard, ...sampled];
  const rows = new Float64Array(slots.length * FEATURE_COUNT);
  slots.forEach((s, r) => {
    for (let f = 0; f < FEATURE_COUNT; f++) rows[r * FEATURE_COUNT + f] = transformed(f, table.features[s * FEATURE_COUNT + f]!);
  });
  const counts = Float64Array.from(slots, (_, r) => (r < chosen.length + hard.length ? 1 : count));
  return { rows, counts, chosen: chosen.length };
}

/** The `k` items with the highest values (ties to the earlier item), in no particular order. */
function best(items: readonly number[], values: Float64Array, k: number): number[] {
  if (items.length <= k) return [...items];
  const order = Array.from(items.keys());
  const threshold = Float64Array.from(values).sort()[values.length - k]!;
  const above = order.filter((i) => values[i]! > threshold);
  const at = order.filter((i) => values[i] === threshold).slice(0, k - above.length);
  return [...above, ...at].map((i) => items[i]!);
}


/** The first groups (the sample is in a hash's order) holding about `follows` hidden follows. */
function upTo(groups: readonly ChoiceGroup[], follows: number): ChoiceGroup[] {
  const kept: ChoiceGroup[] = [];
  let count = 0;
  for (const g of groups) {
    if (count >= follows) break;
    kept.push(g);
    count += g.chosen;
  }
  return kept;
}
