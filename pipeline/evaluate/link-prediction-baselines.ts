/**
 * Link-prediction baselines, computed in memory on the same training follows the
 * recommender saw. Each list leaves out the user and whom the user already follows, as the
 * recommender does; ties go to the lower node index.
 *
 * - popularity: the most followed.
 * - common-neighbours, adamic-adar (sum of 1/ln degree), resource-allocation (sum of
 *   1/degree): over the undirected neighbourhood (follows either way).
 * - directed-adamic-adar: paths user -> z -> candidate, each worth 1/ln of z's degree
 *   (follows either way).
 * - follow-back-then-adamic-adar: the user's followers whom the user does not follow yet
 *   (best Adamic-Adar first), then Adamic-Adar.
 * - personalized-pagerank: random walks along follows from the user, restarting with
 *   probability 0.15 (approximated by forward push), the core of who-to-follow systems.
 */
import type { HoldoutSplit } from './holdout-split.ts';

export const BASELINES = [
  'follow-back-then-adamic-adar',
  'personalized-pagerank',
  'directed-adamic-adar',
  'resource-allocation',
  'adamic-adar',
  'common-neighbours',
  'popularity',
] as const;
export type Baseline = (typeof BASELINES)[number];

/** Compressed adjacency: neighbours of node i are targets[offsets[i] .. offsets[i + 1]). */
interface Adjacency {
  offsets: Uint32Array;
  targets: Uint32Array;
}

const RESTART = 0.15;
/** Forward push stops once no node holds more residual than this per follow it makes. */
const PUSH_EPSILON = 1e-5;

export class TrainingGraph {
  readonly nodes: number;
  private readonly out: Adjacency;
  private readonly in: Adjacency;
  private readonly undirected: Adjacency;
  private popular: number[] | undefined;

  constructor(nodes: number, train: HoldoutSplit['train']) {
    this.nodes = nodes;
    this.out = dedupe(adjacency(nodes, train.from, train.to));
    this.in = dedupe(adjacency(nodes, train.to, train.from));
    this.undirected = dedupe(adjacency(nodes, concat(train.from, train.to), concat(train.to, train.from)));
  }

  /** The top `k` candidates for `user` by `baseline`, best first. */
  topK(baseline: Baseline, user: number, k: number): number[] {
    const excluded = new Set(neighbours(this.out, user));
    excluded.add(user);
    switch (baseline) {
      case 'popularity':
        return this.mostFollowed(k + excluded.size).filter((v) => !excluded.has(v)).slice(0, k);
      case 'common-neighbours':
        return best(this.pathScores(user, this.undirected, this.undirected, () => 1, excluded), k);
      case 'adamic-adar':
        return best(this.adamicAdar(user, excluded), k);
      case 'resource-allocation':
        return best(this.pathScores(user, this.undirected, this.undirected, (z) => 1 / degree(this.undirected, z), excluded), k);
      case 'directed-adamic-adar':
        return best(this.pathScores(user, this.out, this.out, (z) => 1 / Math.log(degree(this.undirected, z)), excluded), k);
      case 'follow-back-then-adamic-adar':
        return this.followBackThenAdamicAdar(user, k, excluded);
      case 'personalized-pagerank':
        return best(this.personalizedPageRank(user, excluded), k);
    }
  }

  /** Whether `follower` follows `followee` in training. */
  follows(follower: number, followee: number): boolean {
    return sortedHas(neighbours(this.out, follower), followee);
  }

  /** Whether the two have a neighbour in common, follows either way (a path of two hops links them). */
  shareNeighbour(a: number, b: number): boolean {
    const x = neighbours(this.undirected, a);
    const y = neighbours(this.undirected, b);
    for (let i = 0, j = 0; i < x.length && j < y.length; ) {
      if (x[i] === y[j]) return true;
      if (x[i]! < y[j]!) i++;
      else j++;
    }
    return false;
  }

  /** Nodes by training in-degree, most followed first. */
  mostFollowed(count: number): number[] {
    this.popular ??= Array.from({ length: this.nodes }, (_, i) => i).sort((a, b) => degree(this.in, b) - degree(this.in, a) || a - b);
    return this.popular.slice(0, count);
  }

  private adamicAdar(user: number, excluded: ReadonlySet<number>): Map<number, number> {
    // ln 1 = 0: a neighbour with no other neighbour links nobody.
    return this.pathScores(user, this.undirected, this.undirected, (z) => (degree(this.undirected, z) > 1 ? 1 / Math.log(degree(this.undirected, z)) : 0), excluded);
  }

  /** Sum over paths user -first-> z -second-> v of weight(z). */
  private pathScores(user: number, first: Adjacency, second: Adjacency, weight: (z: number) => number, excluded: ReadonlySet<number>): Map<number, number> {
    const scores = new Map<number, number>();
    for (const z of neighbours(first, user)) {
      const w = weight(z);
      if (!(w > 0) || !Number.isFinite(w)) continue;
      for (const v of neighbours(second, z)) if (!excluded.has(v)) scores.set(v, (scores.get(v) ?? 0) + w);
    }
    return scores;
  }

  private followBackThenAdamicAdar(user: number, k: number, excluded: ReadonlySet<number>): number[] {
    const aa = this.adamicAdar(user, excluded);
    const followers = [...neighbours(this.in, user)].filter((v) => !excluded.has(v));
    followers.sort((a, b) => (aa.get(b) ?? 0) - (aa.get(a) ?? 0) || a - b);
    const list = followers.slice(0, k);
    const listed = new Set(list);
    for (const v of best(aa, k + list.length)) {
      if (list.length === k) break;
      if (!listed.has(v)) list.push(v);
    }
    return list;
  }

  /** Approximate personalized PageRank from `user` (Andersen, Chung and Lang's forward push). */
  private personalizedPageRank(user: number, excluded: ReadonlySet<number>): Map<number, number> {
    const estimate = new Map<number, number>();
    const residual = new Map<number, number>([[user, 1]]);
    const queue = [user];
    const queued = new Set(queue);
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head]!;
      queued.delete(v);
      const r = residual.get(v) ?? 0;
      const out = neighbours(this.out, v);
      residual.set(v, 0);
      estimate.set(v, (estimate.get(v) ?? 0) + RESTART * r);
      // A walk at someone who follows nobody restarts at the user.
      const targets = out.length > 0 ? out : [user];
      const share = ((1 - RESTART) * r) / targets.length;
      for (const t of targets) {
        const next = (residual.get(t) ?? 0) + share;
        residual.set(t, next);
        if (!queued.has(t) && next > PUSH_EPSILON * Math.max(1, degree(this.out, t))) {
          queue.push(t);
          queued.add(t);
        }
      }
    }
    for (const v of excluded) estimate.delete(v);
    return estimate;
  }
}

/** The `k` best-scored candidates, ties to the lower index. */
function best(scores: Map<number, number>, k: number): number[] {
  return [...scores]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, k)
    .map(([v]) => v);
}

function neighbours(adj: Adjacency, node: number): Uint32Array {
  return adj.targets.subarray(adj.offsets[node]!, adj.offsets[node + 1]!);
}

/** Whether a sorted list (a deduped neighbour list) holds `value`. */
function sortedHas(list: Uint32Array, value: number): boolean {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low < list.length && list[low] === value;
}

function degree(adj: Adjacency, node: number): number {
  return adj.offsets[node + 1]! - adj.offsets[node]!;
}

function adjacency(nodes: number, from: Uint32Array, to: Uint32Array): Adjacency {
  const offsets = new Uint32Array(nodes + 1);
  for (const a of from) offsets[a + 1]!++;
  for (let i = 0; i < nodes; i++) offsets[i + 1]! += offsets[i]!;
  const next = offsets.slice(0, nodes);
  const targets = new Uint32Array(from.length);
  for (let i = 0; i < from.length; i++) targets[next[from[i]!]!++] = to[i]!;
  return { offsets, targets };
}

/** Sorts each neighbour list and drops repeats (a mutual follow is one undirected neighbour). */
function dedupe(adj: Adjacency): Adjacency {
  const nodes = adj.offsets.length - 1;
  const offsets = new Uint32Array(nodes + 1);
  const targets: number[] = [];
  for (let i = 0; i < nodes; i++) {
    const list = [...new Set(adj.targets.subarray(adj.offsets[i]!, adj.offsets[i + 1]!))].sort((a, b) => a - b);
    for (const t of list) targets.push(t);
    offsets[i + 1] = targets.length;
  }
  return { offsets, targets: Uint32Array.from(targets) };
}

function concat(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
