/**
 * The app's follow graph in memory: who follows whom, both ways, with when each follow began.
 * About 16 bytes per follow (a target and a time each way) and 8 per profile: the 100 k
 * bench world's 5 M follows take some 80 MB, a million profiles' 50 M about 800 MB.
 *
 * Every list is ordered by how many follow the listed profile, most followed first (then the
 * lower id): a hop that may pass on only some of its list passes on its most followed
 * (rank/path-sources.ts), and the popular list is the same order (`popularOrder`).
 */
import { csrOf, degreeOf, edgesByRank, neighboursOf, uint32Array, type Adjacency } from './adjacency.ts';

export interface FollowGraphArrays {
  nodes: number;
  /** Whom each profile follows. */
  out: Adjacency;
  /** When each of those follows began (unix seconds, or any increasing rank; 0 when unknown), beside out.targets. */
  outTimes: Uint32Array;
  /** Who follows each profile. */
  in: Adjacency;
  /** When each of those follows began, beside in.targets. */
  inTimes: Uint32Array;
  /** Every profile, most followed first (then the lower id). */
  popularOrder: Uint32Array;
}

export class FollowGraph {
  readonly nodes: number;
  readonly out: Adjacency;
  readonly outTimes: Uint32Array;
  readonly in: Adjacency;
  readonly inTimes: Uint32Array;
  readonly popularOrder: Uint32Array;
  readonly edges: number;

  constructor(arrays: FollowGraphArrays) {
    this.nodes = arrays.nodes;
    this.out = arrays.out;
    this.outTimes = arrays.outTimes;
    this.in = arrays.in;
    this.inTimes = arrays.inTimes;
    this.popularOrder = arrays.popularOrder;
    this.edges = arrays.out.targets.length;
  }

  /**
   * The graph of the follows (from[e] follows to[e], since times[e]); repeated follows and
   * self-follows must already be gone (the loader reads each follow once; edge lists are
   * deduplicated as they are read). `shared`: on SharedArrayBuffers, for worker threads.
   */
  static of(nodes: number, from: Uint32Array, to: Uint32Array, times: Uint32Array | undefined, shared = false): FollowGraph {
    const inDegree = new Uint32Array(nodes);
    for (let e = 0; e < to.length; e++) inDegree[to[e]!]!++;
    const popularOrder = mostFollowedFirst(inDegree, shared);
    const rank = new Uint32Array(nodes);
    for (let r = 0; r < nodes; r++) rank[popularOrder[r]!] = r;
    const out = csrOf(nodes, from, to, shared, edgesByRank(to, rank));
    const into = csrOf(nodes, to, from, shared, edgesByRank(from, rank));
    const outTimes = uint32Array(to.length, shared);
    const inTimes = uint32Array(to.length, shared);
    if (times) {
      for (let e = 0; e < to.length; e++) {
        outTimes[out.position[e]!] = times[e]!;
        inTimes[into.position[e]!] = times[e]!;
      }
    }
    return new FollowGraph({ nodes, out: out.adj, outTimes, in: into.adj, inTimes, popularOrder });
  }

  /** The graph's arrays, to hand to another thread (shared memory is not copied). */
  arrays(): FollowGraphArrays {
    return { nodes: this.nodes, out: this.out, outTimes: this.outTimes, in: this.in, inTimes: this.inTimes, popularOrder: this.popularOrder };
  }

  following(p: number): Uint32Array {
    return neighboursOf(this.out, p);
  }

  followers(p: number): Uint32Array {
    return neighboursOf(this.in, p);
  }

  outDegree(p: number): number {
    return degreeOf(this.out, p);
  }

  inDegree(p: number): number {
    return degreeOf(this.in, p);
  }

  /** When p last followed anyone, 0 when it follows nobody (or no follow has a time). */
  newestFollow(p: number): number {
    let newest = 0;
    for (let i = this.out.offsets[p]!, end = this.out.offsets[p + 1]!; i < end; i++) newest = Math.max(newest, this.outTimes[i]!);
    return newest;
  }
}

/** Nodes by in-degree, most first, equal degrees by lower id: a counting sort by degree. */
function mostFollowedFirst(inDegree: Uint32Array, shared: boolean): Uint32Array {
  let top = 0;
  for (const d of inDegree) top = Math.max(top, d);
  const starts = new Uint32Array(top + 2);
  // Bucket b holds degree top - b, so that bucket 0 is the most followed.
  for (const d of inDegree) starts[top - d + 1]!++;
  for (let b = 0; b <= top; b++) starts[b + 1]! += starts[b]!;
  const order = uint32Array(inDegree.length, shared);
  for (let node = 0; node < inDegree.length; node++) order[starts[top - inDegree[node]!]!++] = node;
  return order;
}
