/**
 * The classic link-prediction baselines, computed in memory on the same training edges
 * the recommender saw: common neighbours and Adamic-Adar over the undirected neighbourhood
 * (follows either way), and global popularity (most followed). Each list leaves out the
 * user and whom the user already follows, as the recommender does.
 */
import type { FollowGraph } from './follow-graph.ts';

export type Baseline = 'common-neighbours' | 'adamic-adar' | 'popularity';
export const BASELINES: readonly Baseline[] = ['common-neighbours', 'adamic-adar', 'popularity'];

/** Compressed adjacency: neighbours of node i are targets[offsets[i] .. offsets[i + 1]). */
interface Adjacency {
  offsets: Uint32Array;
  targets: Uint32Array;
}

export class TrainingGraph {
  readonly nodes: number;
  private readonly out: Adjacency;
  private readonly undirected: Adjacency;
  private readonly inDegree: Uint32Array;

  constructor(graph: FollowGraph, train: Uint32Array) {
    this.nodes = graph.nodeIds.length;
    const from = train.map((i) => graph.from[i]!);
    const to = train.map((i) => graph.to[i]!);
    this.out = adjacency(this.nodes, from, to);
    this.undirected = dedupe(adjacency(this.nodes, concat(from, to), concat(to, from)));
    this.inDegree = new Uint32Array(this.nodes);
    for (const b of to) this.inDegree[b]!++;
  }

  /** The top `k` candidates for `user` by `baseline`, best first; ties by lower node index. */
  topK(baseline: Baseline, user: number, k: number, popular: readonly number[]): number[] {
    const excluded = new Set(this.neighbours(this.out, user));
    excluded.add(user);
    if (baseline === 'popularity') return popular.filter((v) => !excluded.has(v)).slice(0, k);
    const scores = new Map<number, number>();
    for (const z of this.neighbours(this.undirected, user)) {
      const degree = this.degree(this.undirected, z);
      // ln 1 = 0: a neighbour with no other neighbour links nobody (Adamic-Adar skips it).
      const weight = baseline === 'common-neighbours' ? 1 : degree > 1 ? 1 / Math.log(degree) : 0;
      if (weight === 0) continue;
      for (const v of this.neighbours(this.undirected, z)) {
        if (!excluded.has(v)) scores.set(v, (scores.get(v) ?? 0) + weight);
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([v]) => v);
  }

  /** Nodes by training in-degree, most followed first: the popularity list before exclusions. */
  mostFollowed(count: number): number[] {
    return Array.from({ length: this.nodes }, (_, i) => i)
      .sort((a, b) => this.inDegree[b]! - this.inDegree[a]! || a - b)
      .slice(0, count);
  }

  private neighbours(adj: Adjacency, node: number): Uint32Array {
    return adj.targets.subarray(adj.offsets[node]!, adj.offsets[node + 1]!);
  }

  private degree(adj: Adjacency, node: number): number {
    return adj.offsets[node + 1]! - adj.offsets[node]!;
  }
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
    targets.push(...list);
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
