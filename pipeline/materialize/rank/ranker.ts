/**
 * One profile's list: candidates from every source (path-sources.ts, walk-source.ts,
 * signal-sources.ts), scored by the ranking model, the best `topK` kept, each with its
 * reason (reasons.ts), and places left filled with the most followed profiles. One Ranker
 * per thread; it serves the nightly lists, the on-demand lists, the fit and `soulgraph eval`.
 */
import type { FollowGraph } from '../graph/follow-graph.ts';
import type { FollowMoments } from '../graph/follow-moments.ts';
import type { SignalGraphs } from '../graph/signal-graphs.ts';
import { CandidateTable } from './candidate-table.ts';
import { F, FEATURE_COUNT } from './features.ts';
import { addFollowers, addPaths } from './path-sources.ts';
import { scoreOf, type RankingModel } from './ranking-model.ts';
import { reasonOf, REASON, type ReasonColumns } from './reasons.ts';
import { addSignals } from './signal-sources.ts';
import { ownFactsOf, type OwnFacts } from './own-facts.ts';
import { WalkScratch } from './walk-source.ts';

/** What a ranker reads: the follow graph and the other signals (graph/world.ts). */
export interface RankWorld {
  follows: FollowGraph;
  /** Follow times counted in follows, where follows have times that differ. */
  moments?: FollowMoments;
  signals: SignalGraphs;
}

export interface RankSettings {
  topK: number;
  /** Paths a profile gets at most (path-budget.ts). */
  pathCap: number;
  /** Follows the walks read at most per profile. */
  walkBudget: number;
  /** Holders each collection passes on. */
  perCollection: number;
}

/** A ranked list, best first, each entry with its reason (reasons.ts); the arrays are the ranker's own and are overwritten by its next list. */
export interface RankedList extends ReasonColumns {
  length: number;
  candidate: Uint32Array;
  score: Float64Array;
}

export class Ranker {
  readonly table: CandidateTable;
  private readonly walks: WalkScratch;
  private scores: Float64Array;
  private order: Uint32Array;
  private readonly list: RankedList;

  constructor(
    readonly world: RankWorld,
    readonly settings: RankSettings,
  ) {
    const nodes = world.follows.nodes;
    this.table = new CandidateTable(nodes);
    this.walks = new WalkScratch(nodes);
    this.scores = new Float64Array(0);
    this.order = new Uint32Array(1024);
    const k = settings.topK;
    this.list = {
      length: 0,
      candidate: new Uint32Array(k),
      score: new Float64Array(k),
      kind: new Uint8Array(k),
      subject: new Int32Array(k),
      chainId: new Uint32Array(k),
      social: new Float64Array(k),
      counterparty: new Float64Array(k),
      nft: new Float64Array(k),
      graph: new Float64Array(k),
    };
  }

  /**
   * Fills the table with a profile's candidates and their raw features (itself, and whom it
   * follows, excluded): profile p of the world, or one given by its facts (own-facts.ts).
   */
  collect(profile: number | OwnFacts): CandidateTable {
    const { follows, moments, signals } = this.world;
    const own = typeof profile === 'number' ? ownFactsOf(this.world, profile) : profile;
    const table = this.table;
    table.reset();
    addFollowers(table, own);
    addPaths(table, follows, own, this.settings.pathCap, moments);
    addSignals(table, signals, own, this.settings.perCollection);
    if (this.settings.walkBudget > 0) this.walks.walkFrom(follows, own, this.settings.walkBudget, table);
    const inDegree = follows.in.offsets;
    for (let s = 0; s < table.size; s++) {
      const c = table.candidate[s]!;
      table.set(s, F.popularity, inDegree[c + 1]! - inDegree[c]!);
    }
    return table;
  }

  /** The profile's list under `model`. */
  rank(profile: number | OwnFacts, model: RankingModel): RankedList {
    const table = this.collect(profile);
    const weights = model.weights;
    const count = table.size;
    if (this.order.length < count) this.order = new Uint32Array(count * 2);
    if (this.scores.length < count) this.scores = new Float64Array(count * 2);
    const scores = this.scores;
    const inDegree = this.world.follows.in.offsets;
    const popularity = (c: number) => inDegree[c + 1]! - inDegree[c]!;
    for (let s = 0; s < count; s++) scores[s] = scoreOf(weights, table.features, s * FEATURE_COUNT);
    // Best first; equal scores to the more followed, then the lower id.
    const better = (a: number, b: number) =>
      scores[b]! - scores[a]! || popularity(table.candidate[b]!) - popularity(table.candidate[a]!) || table.candidate[a]! - table.candidate[b]!;
    const best = bestSlots(this.order, count, this.settings.topK, scores, better);
    const list = this.list;
    list.length = best;
    for (let i = 0; i < best; i++) {
      const s = this.order[i]!;
      list.candidate[i] = table.candidate[s]!;
      list.score[i] = scores[s]!;
      reasonOf(table, s, weights, list, i);
    }
    this.fillWithPopular(list);
    return list;
  }

  /** Places left go to the most followed profiles not listed, not p, not followed by p: score 0, reason "popular". */
  private fillWithPopular(list: RankedList): void {
    const { popularOrder } = this.world.follows;
    const table = this.table;
    const inDegree = this.world.follows.in.offsets;
    for (let r = 0; r < popularOrder.length && list.length < this.settings.topK; r++) {
      const c = popularOrder[r]!;
      // Nobody follows the rest: they are not popular.
      if (inDegree[c + 1]! === inDegree[c]!) break;
      if (table.isExcluded(c) || table.existingSlot(c) !== -1) continue;
      const at = list.length++;
      list.candidate[at] = c;
      list.score[at] = 0;
      list.kind[at] = REASON.popular;
      list.subject[at] = -1;
      list.chainId[at] = 0;
      list.social[at] = list.counterparty[at] = list.nft[at] = list.graph[at] = 0;
    }
  }
}

/**
 * Puts the `k` best of slots 0..count-1 first in `order`, sorted; returns how many (<= k).
 * A quickselect on the scores first, so that only those k are sorted.
 */
function bestSlots(order: Uint32Array, count: number, k: number, scores: Float64Array, better: (a: number, b: number) => number): number {
  for (let s = 0; s < count; s++) order[s] = s;
  if (count > k) select(order, 0, count - 1, k, better);
  const kept = Math.min(k, count);
  order.subarray(0, kept).sort(better);
  void scores;
  return kept;
}

/** Hoare's quickselect: afterwards order[0..k) hold the k best under `better`. */
function select(order: Uint32Array, left: number, right: number, k: number, better: (a: number, b: number) => number): void {
  while (right > left) {
    const pivot = order[(left + right) >>> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (better(order[i]!, pivot) < 0) i++;
      while (better(order[j]!, pivot) > 0) j--;
      if (i <= j) {
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
        i++;
        j--;
      }
    }
    if (k - 1 <= j) right = j;
    else if (k - 1 >= i) left = i;
    else return;
  }
}
