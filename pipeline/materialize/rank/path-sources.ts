/**
 * Candidates from the follow graph within two hops of a profile p: its followers, and every
 * c that some z links to p, four ways (p -> z -> c, p <- z -> c, p -> z <- c, p <- z <- c;
 * features.ts). A follower p follows back is one of its followees: its paths count once, as a
 * followee's.
 *
 * Paths cost time, and a profile near hubs has millions of them. So each profile gets at most
 * `cap` paths (path-budget.ts): when it has more, every hop passes on the same number h of its
 * list (the most followed first, skipping whom p already follows), h the largest that keeps
 * the paths within the cap. Most profiles have fewer paths than the cap and get every one.
 */
import type { FollowGraph } from '../graph/follow-graph.ts';
import { NO_SLOT, type CandidateTable } from './candidate-table.ts';
import { F, FEATURE_COUNT } from './features.ts';
import { LAST_MOMENT, type FollowMoments } from '../graph/follow-moments.ts';
import type { OwnFacts } from './own-facts.ts';

/** How much a path weighs by how far (in moments) its last follow is from p's newest follow. */
export function recencyFactor(gap: number): number {
  return (0.2 + Math.exp(-gap / 200)) / 1.2;
}

/** recencyFactor of every gap a moment can make (0..LAST_MOMENT), looked up per path. */
const RECENCY = Float64Array.from({ length: LAST_MOMENT + 1 }, (_, gap) => recencyFactor(gap));

/** What a profile z weighs as the middle of a path whose second step has `degree` follows: Adamic-Adar. */
export function pathWeight(degree: number): number {
  return 1 / Math.log(Math.E + degree);
}

/** Whom p follows, excluded from its list, and its followers as candidates. */
export function addFollowers(table: CandidateTable, own: OwnFacts): void {
  if (own.profile >= 0) table.exclude(own.profile);
  for (const f of own.followees) table.exclude(f);
  const newest = own.newestFollow;
  for (let i = 0; i < own.followers.length; i++) {
    const slot = table.slot(own.followers[i]!);
    if (slot === NO_SLOT) continue;
    table.set(slot, F.follows_you, 1);
    // A follow made at the same time as p's newest, or by a p that follows nobody, is not new.
    if (newest > 0 && own.followerTimes[i]! > newest) table.set(slot, F.new_follower, 1);
  }
}

/** Paths in all of profile p of the graph, unbounded: what each hop would pass on whole. */
export function pathsOf(g: FollowGraph, p: number): number {
  return hopPaths(g, g.following(p)) + hopPaths(g, g.followers(p));
}

function hopPaths(g: FollowGraph, hops: Uint32Array): number {
  let paths = 0;
  const { out, in: into } = g;
  for (const z of hops) paths += out.offsets[z + 1]! - out.offsets[z]! + into.offsets[z + 1]! - into.offsets[z]!;
  return paths;
}

/**
 * Adds p's paths, at most about `cap` (a hop's list is read up to twice its share, to skip
 * whom p follows). addFollowers first: it marks whom p follows. `moments`: weigh paths by time too.
 */
export function addPaths(table: CandidateTable, g: FollowGraph, own: OwnFacts, cap: number, moments?: FollowMoments): void {
  const share = hopShare(g, own, cap);
  // A profile that follows nobody has no newest follow to measure from: its paths weigh alike.
  const newestMoment = moments ? own.newestMoment : -1;
  for (const z of own.followees) {
    passOn(table, g, z, share, 2, F.followee_follows, newestMoment, moments);
    passOnFollowers(table, g, z, share, F.both_follow);
  }
  for (const z of own.followers) {
    // A follower p follows back passed on already, as a followee.
    if (table.isExcluded(z)) continue;
    passOn(table, g, z, share, 1, F.follower_follows, newestMoment, moments);
    passOnFollowers(table, g, z, share, F.follows_follower);
  }
}

/** z's followees as candidates of a path through z: named paths ("Followed by z"). */
function passOn(table: CandidateTable, g: FollowGraph, z: number, share: number, tie: 1 | 2, feature: number, newestMoment: number, moments?: FollowMoments): void {
  const start = g.out.offsets[z]!;
  const end = g.out.offsets[z + 1]!;
  const weight = pathWeight(end - start);
  const allocated = 1 / (end - start);
  const targets = g.out.targets;
  const timed = moments !== undefined && newestMoment >= 0;
  const outMoments = moments?.outMoments;
  const last = Math.min(end, start + 2 * share);
  let passed = 0;
  for (let i = start; i < last && passed < share; i++) {
    const slot = table.slot(targets[i]!);
    if (slot === NO_SLOT) continue;
    passed++;
    const f = table.features;
    const at = slot * FEATURE_COUNT;
    f[at + feature]! += weight;
    f[at + F.adamic_adar]! += weight;
    f[at + F.resource_allocation]! += allocated;
    f[at + F.recent_paths]! += timed ? weight * RECENCY[Math.abs(newestMoment - outMoments![i]!)]! : weight;
    table.noteFriend(slot, z, tie, weight);
  }
}

/** z's followers as candidates of a path through z (both follow z, or the candidate follows z who follows p). */
function passOnFollowers(table: CandidateTable, g: FollowGraph, z: number, share: number, feature: number): void {
  const start = g.in.offsets[z]!;
  const end = g.in.offsets[z + 1]!;
  const weight = pathWeight(end - start);
  const allocated = 1 / (end - start);
  const sources = g.in.targets;
  const last = Math.min(end, start + 2 * share);
  let passed = 0;
  for (let i = start; i < last && passed < share; i++) {
    const slot = table.slot(sources[i]!);
    if (slot === NO_SLOT) continue;
    passed++;
    const f = table.features;
    const at = slot * FEATURE_COUNT;
    f[at + feature]! += weight;
    f[at + F.adamic_adar]! += weight;
    f[at + F.resource_allocation]! += allocated;
  }
}

/**
 * The length h each hop list of p may pass on: every list whole when p's paths fit `cap`,
 * else the largest h with Σ min(list, h) <= cap over p's hop lists (a water level).
 */
export function hopShare(g: FollowGraph, own: OwnFacts, cap: number): number {
  if (hopPaths(g, own.followees) + hopPaths(g, own.followers) <= cap) return Number.MAX_SAFE_INTEGER;
  const lengths: number[] = [];
  const { out, in: into } = g;
  for (const hops of [own.followees, own.followers]) {
    for (const z of hops) lengths.push(out.offsets[z + 1]! - out.offsets[z]!, into.offsets[z + 1]! - into.offsets[z]!);
  }
  let low = 0;
  let high = lengths.reduce((a, b) => Math.max(a, b), 0);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    let total = 0;
    for (const length of lengths) total += Math.min(length, mid);
    if (total <= cap) low = mid;
    else high = mid - 1;
  }
  return Math.max(1, low);
}
