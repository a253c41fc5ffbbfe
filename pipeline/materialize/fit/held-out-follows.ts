/**
 * What the fit learns from: each sampled profile's newest follows, hidden from the graph as
 * if not made yet. A list answers "whom does this profile follow next?", and a profile's
 * newest follows are the nearest thing to that question the run holds.
 *
 * Profiles with at least two follows are sampled in the order of a hash of their dense id
 * (the same world samples the same profiles), up to `sampleSize` of them and `maxFollows`
 * follows in all; each hides its newest tenth, at least one (equal times in the hash's order). The hidden follows leave the graph whole: every path
 * through them is gone too, as everyone's next follows are unknown when the lists are made.
 *
 * A return of a hidden follow made after it is hidden with it: it did not exist yet. So is
 * one made at the same time where the graph's follows are pairs (all returned, as friendships
 * are): a pair forms at once, and its other half would otherwise give the hidden follow away
 * as a follower. Elsewhere a return at the same time (a graph without times) stays: following
 * back is what such a return is, and what the fit must learn to value.
 */
import { mix32 } from '../../generate/random.ts';
import { FollowGraph } from '../graph/follow-graph.ts';
import type { FollowMoments } from '../graph/follow-moments.ts';

export interface HeldOutFollows {
  /** Sampled profiles, each with the followees it hid. */
  heldOut: Map<number, number[]>;
  /** The graph without them, and its follows' moments where the graph has them. */
  graph: FollowGraph;
  moments?: FollowMoments;
  /** Follows hidden in all. */
  count: number;
}

export const HELD_OUT_SHARE = 0.1;

export function heldOutFollows(g: FollowGraph, sampleSize: number, maxFollows = Infinity, moments?: FollowMoments): HeldOutFollows {
  const eligible: number[] = [];
  for (let p = 0; p < g.nodes; p++) if (g.outDegree(p) >= 2) eligible.push(p);
  eligible.sort((a, b) => mix32(a ^ 0x5bd1e995) - mix32(b ^ 0x5bd1e995) || a - b);
  const heldOut = new Map<number, number[]>();
  const hidden = new Uint8Array(g.edges);
  const pairs = returnedShare(g) >= PAIR_GRAPH_SHARE;
  let count = 0;
  for (const p of eligible.slice(0, sampleSize)) {
    if (count >= maxFollows) break;
    const start = g.out.offsets[p]!;
    const edges = Array.from({ length: g.outDegree(p) }, (_, i) => start + i);
    edges.sort((a, b) => g.outTimes[b]! - g.outTimes[a]! || mix32(g.out.targets[a]! ^ p) - mix32(g.out.targets[b]! ^ p) || a - b);
    const share = Math.max(1, Math.round(HELD_OUT_SHARE * edges.length));
    const newest = edges.slice(0, share);
    for (const e of newest) {
      hidden[e] = 1;
      const back = edgeBetween(g, g.out.targets[e]!, p);
      if (back >= 0 && (g.outTimes[back]! > g.outTimes[e]! || (pairs && g.outTimes[back] === g.outTimes[e]))) hidden[back] = 1;
    }
    heldOut.set(p, newest.map((e) => g.out.targets[e]!));
    count += newest.length;
  }
  return { heldOut, ...withoutEdges(g, hidden, moments), count };
}

/** A graph where at least this share of follows are returned is a graph of pairs. */
const PAIR_GRAPH_SHARE = 0.95;

/** The share of follows whose followee follows back. */
export function returnedShare(g: FollowGraph): number {
  let returned = 0;
  const mark = new Uint32Array(g.nodes);
  for (let p = 0; p < g.nodes; p++) {
    // Whom p follows, marked; then each follower of p that p follows is a returned follow.
    for (let i = g.out.offsets[p]!, end = g.out.offsets[p + 1]!; i < end; i++) mark[g.out.targets[i]!] = p + 1;
    for (let i = g.in.offsets[p]!, end = g.in.offsets[p + 1]!; i < end; i++) if (mark[g.in.targets[i]!] === p + 1) returned++;
  }
  return g.edges === 0 ? 0 : returned / g.edges;
}

/** The position in g.out of the follow from -> to, or -1 (a scan of from's follows: the fit asks this of a few thousand). */
function edgeBetween(g: FollowGraph, from: number, to: number): number {
  const start = g.out.offsets[from]!;
  const end = g.out.offsets[from + 1]!;
  for (let i = start; i < end; i++) if (g.out.targets[i] === to) return i;
  return -1;
}

/**
 * The graph without the out-edges marked in `hidden` (positions in g.out), each list keeping
 * its order: a copy, not a new sort (the few follows hidden barely move who is most followed);
 * and the follows' moments, where given, for what is kept.
 */
function withoutEdges(g: FollowGraph, hidden: Uint8Array, moments?: FollowMoments): { graph: FollowGraph; moments?: FollowMoments } {
  // Followers to drop from each followee's list.
  const droppedFollowers = new Map<number, Set<number>>();
  for (let p = 0; p < g.nodes; p++) {
    for (let i = g.out.offsets[p]!, end = g.out.offsets[p + 1]!; i < end; i++) {
      if (!hidden[i]) continue;
      const followee = g.out.targets[i]!;
      let set = droppedFollowers.get(followee);
      if (!set) droppedFollowers.set(followee, (set = new Set()));
      set.add(p);
    }
  }
  const out = keptLists(g.out.offsets, [g.out.targets, g.outTimes, ...(moments ? [moments.outMoments] : [])], (_, i) => hidden[i] === 1);
  const into = keptLists(g.in.offsets, [g.in.targets, g.inTimes], (p, i) => droppedFollowers.get(p)?.has(g.in.targets[i]!) === true);
  const graph = new FollowGraph({
    nodes: g.nodes,
    out: { offsets: out.offsets, targets: out.columns[0] as Uint32Array },
    outTimes: out.columns[1] as Uint32Array,
    in: { offsets: into.offsets, targets: into.columns[0] as Uint32Array },
    inTimes: into.columns[1] as Uint32Array,
    popularOrder: g.popularOrder,
  });
  return { graph, ...(moments ? { moments: { outMoments: out.columns[2] as Uint16Array, starts: moments.starts } } : {}) };
}

/** The CSR lists without the entries `dropped` names, each column beside them copied alike. */
function keptLists(offsets: Uint32Array, columns: (Uint32Array | Uint16Array)[], dropped: (p: number, i: number) => boolean) {
  const nodes = offsets.length - 1;
  const keptOffsets = new Uint32Array(nodes + 1);
  const kept = columns.map((c) => new (c.constructor as new (n: number) => Uint32Array | Uint16Array)(c.length));
  let at = 0;
  for (let p = 0; p < nodes; p++) {
    for (let i = offsets[p]!, end = offsets[p + 1]!; i < end; i++) {
      if (dropped(p, i)) continue;
      for (let c = 0; c < columns.length; c++) kept[c]![at] = columns[c]![i]!;
      at++;
    }
    keptOffsets[p + 1] = at;
  }
  return { offsets: keptOffsets, columns: kept.map((c) => c.slice(0, at)) };
}
