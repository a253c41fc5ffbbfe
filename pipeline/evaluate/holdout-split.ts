/**
 * Which follows the recommender may see (training) and which it should find (hidden), three
 * ways: at random, each user's newest, or as given by two files. An undirected graph is
 * split by pairs: a hidden pair is hidden both ways, so that neither direction gives the
 * other away; in training it is a follow both ways.
 */
import { hashFloat, seedOf, streamKey } from '../generate/random.ts';
import type { FollowGraph } from './follow-graph.ts';

/** A split the graph cannot have (a time split without times): the user's to mend. */
export class SplitError extends Error {
  override name = 'SplitError';
}

export interface HoldoutSplit {
  /** The follows the recommender sees, directed. */
  train: TrainingFollows;
  /** Hidden followees per follower (dense ids). */
  hidden: Map<number, Set<number>>;
}

/**
 * Directed follows and, where the split hides by time (or is given) and the graph gives every
 * edge a time, each follow's place in time: 1 for the earliest, equal times equal (a pair's
 * two directions share its time). The run is given these as follow times, so that its fit
 * holds out each profile's newest follows (path-weight-fit.ts) and its newest followers count
 * as they would in production; a rank, not the file's number, is always a valid time.
 */
export interface TrainingFollows {
  from: Uint32Array;
  to: Uint32Array;
  timeRank?: Uint32Array;
}

/**
 * Hides each edge (each pair) with probability `fraction`, decided by a hash of (seed,
 * from, to): the same seed hides the same edges whatever the order of the file. The run is
 * not given times: what it is asked to find is scattered over the graph's history, not its
 * newest follows, which is what times prepare a run for.
 */
export function randomSplit(graph: FollowGraph, fraction: number, seed: number): HoldoutSplit {
  const key = seedOf(seed);
  const stream = streamKey('holdout');
  const hide = new Uint8Array(graph.from.length);
  for (let i = 0; i < hide.length; i++) hide[i] = hashFloat(key, stream, graph.from[i]!, graph.to[i]!) < fraction ? 1 : 0;
  return splitBy({ ...graph, time: undefined }, hide);
}

/**
 * Hides each user's newest follows: round(fraction x the follows they made), newest first
 * (equal times in an order set by the seed). A directed graph with a time on every edge.
 */
export function timeSplit(graph: FollowGraph, fraction: number, seed: number): HoldoutSplit {
  if (!graph.time) throw new SplitError('a time split needs a time on every edge ("<from> <to> <time>")');
  if (graph.undirected) throw new SplitError('a time split hides each follower\'s newest follows: it needs a directed graph');
  const time = graph.time;
  const key = seedOf(seed);
  const stream = streamKey('time-holdout');
  const byFollower = new Map<number, number[]>();
  for (let i = 0; i < graph.from.length; i++) {
    const list = byFollower.get(graph.from[i]!);
    if (list) list.push(i);
    else byFollower.set(graph.from[i]!, [i]);
  }
  const hide = new Uint8Array(graph.from.length);
  for (const edges of byFollower.values()) {
    const newest = edges.sort((a, b) => time[b]! - time[a]! || hashFloat(key, stream, graph.from[a]!, graph.to[a]!) - hashFloat(key, stream, graph.from[b]!, graph.to[b]!));
    for (const e of newest.slice(0, Math.round(fraction * edges.length))) hide[e] = 1;
  }
  return splitBy(graph, hide);
}

/** Training as in one file, hidden as in another (read with one EdgeListReader, so their ids agree). */
export function givenSplit(train: FollowGraph, test: FollowGraph): HoldoutSplit {
  const trained = directedEdges(train, new Uint8Array(train.from.length));
  const known = new Set<string>();
  for (let i = 0; i < trained.from.length; i++) known.add(`${trained.from[i]}\t${trained.to[i]}`);
  const hidden = new Map<number, Set<number>>();
  const tested = directedEdges(test, new Uint8Array(test.from.length));
  for (let i = 0; i < tested.from.length; i++) {
    // A test follow the training already has is not something to find.
    if (!known.has(`${tested.from[i]}\t${tested.to[i]}`)) addTo(hidden, tested.from[i]!, tested.to[i]!);
  }
  return { train: trained, hidden };
}

function splitBy(graph: FollowGraph, hide: Uint8Array): HoldoutSplit {
  const hidden = new Map<number, Set<number>>();
  for (let i = 0; i < hide.length; i++) {
    if (!hide[i]) continue;
    addTo(hidden, graph.from[i]!, graph.to[i]!);
    if (graph.undirected) addTo(hidden, graph.to[i]!, graph.from[i]!);
  }
  return { train: directedEdges(graph, hide), hidden };
}

/** The edges not hidden, as directed follows (both ways for a pair), with their time ranks. */
function directedEdges(graph: FollowGraph, hide: Uint8Array): TrainingFollows {
  const ranks = graph.time && timeRanks(graph.time);
  const from: number[] = [];
  const to: number[] = [];
  const timeRank: number[] = [];
  const add = (a: number, b: number, i: number) => {
    from.push(a);
    to.push(b);
    if (ranks) timeRank.push(ranks[i]!);
  };
  for (let i = 0; i < graph.from.length; i++) {
    if (hide[i]) continue;
    add(graph.from[i]!, graph.to[i]!, i);
    if (graph.undirected) add(graph.to[i]!, graph.from[i]!, i);
  }
  return { from: Uint32Array.from(from), to: Uint32Array.from(to), timeRank: ranks && Uint32Array.from(timeRank) };
}

/** Each time's dense rank among all of them, from 1. */
function timeRanks(time: Float64Array): Uint32Array {
  const distinct = [...new Set(time)].sort((a, b) => a - b);
  const rankOf = new Map(distinct.map((t, i) => [t, i + 1]));
  return Uint32Array.from(time, (t) => rankOf.get(t)!);
}

function addTo(map: Map<number, Set<number>>, key: number, value: number): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
