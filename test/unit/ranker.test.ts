/**
 * The ranker on worlds small enough to work out by hand (pipeline/materialize/rank/): which
 * candidates each source names, their features, the order, the filler and the reasons.
 */
import { describe, expect, it } from 'vitest';
import { FollowGraph } from '../../pipeline/materialize/graph/follow-graph.ts';
import { followMoments } from '../../pipeline/materialize/graph/follow-moments.ts';
import { NO_SIGNALS } from '../../pipeline/materialize/graph/signal-graphs.ts';
import { F, FEATURES, transformed } from '../../pipeline/materialize/rank/features.ts';
import { hopShare, pathWeight, recencyFactor } from '../../pipeline/materialize/rank/path-sources.ts';
import { pathBudget } from '../../pipeline/materialize/rank/path-budget.ts';
import { ownFactsOf } from '../../pipeline/materialize/rank/own-facts.ts';
import { Ranker, type RankSettings } from '../../pipeline/materialize/rank/ranker.ts';
import { DEFAULT_MODEL, type RankingModel } from '../../pipeline/materialize/rank/ranking-model.ts';
import { REASON } from '../../pipeline/materialize/rank/reasons.ts';

const EVERY_PATH: RankSettings = { topK: 20, pathCap: Number.MAX_SAFE_INTEGER, walkBudget: 0, perCollection: 100 };

/** A world of named profiles (numbered in the order given) and follows "a>b". */
function worldOf(names: string[], follows: string[], times?: number[]) {
  const id = new Map(names.map((n, i) => [n, i]));
  const from = Uint32Array.from(follows, (f) => id.get(f.split('>')[0]!)!);
  const to = Uint32Array.from(follows, (f) => id.get(f.split('>')[1]!)!);
  const graph = FollowGraph.of(names.length, from, to, times && Uint32Array.from(times));
  return { id, names, world: { follows: graph, signals: NO_SIGNALS(names.length), ...(times ? { moments: followMoments(graph) } : {}) } };
}

/** One weight for one feature, none for the rest. */
function only(feature: (typeof FEATURES)[number], weight = 1): RankingModel {
  return { weights: FEATURES.map((f) => (f === feature ? weight : 0)), source: 'default' };
}

describe('the paths of two hops', () => {
  // p follows a and b, c follows p; a follows x and y, b follows x, c follows z; x is followed by q too.
  const { id, names, world } = worldOf(['p', 'a', 'b', 'c', 'x', 'y', 'z', 'q'], ['p>a', 'p>b', 'c>p', 'a>x', 'a>y', 'b>x', 'c>z', 'q>x']);
  const ranker = new Ranker(world, EVERY_PATH);
  const features = (candidate: string) => {
    const table = ranker.collect(id.get('p')!);
    const slot = table.existingSlot(id.get(candidate)!);
    return slot < 0 ? undefined : Object.fromEntries(FEATURES.map((f, i) => [f, table.get(slot, i)]).filter(([, v]) => v !== 0));
  };

  it("sums each followee's Adamic-Adar weight 1 / ln(e + whom it follows) over the followees who follow the candidate", () => {
    // a follows 2, b follows 1.
    expect(features('x')!.followee_follows).toBeCloseTo(1 / Math.log(Math.E + 2) + 1 / Math.log(Math.E + 1), 12);
    expect(features('y')!.followee_follows).toBeCloseTo(1 / Math.log(Math.E + 2), 12);
    expect(pathWeight(2)).toBeCloseTo(1 / Math.log(Math.E + 2), 12);
  });

  it('counts a follower p does not follow back as a path of its own kind, and the follower as a candidate that follows p', () => {
    // c follows p and z: 2.
    expect(features('z')).toMatchObject({ follower_follows: 1 / Math.log(Math.E + 2) });
    expect(features('c')).toMatchObject({ follows_you: 1 });
  });

  it('links no one through a profile p does not follow: q follows x, whom p does not follow', () => {
    expect(features('q')).toBeUndefined();
  });

  it('counts both following the same profile, each such middle weighing 1 / ln(e + its followers), and names no friend for it', () => {
    const both = worldOf(['p', 'a', 'q', 'r'], ['p>a', 'q>a', 'r>a']);
    const table = new Ranker(both.world, EVERY_PATH).collect(both.id.get('p')!);
    const q = table.existingSlot(both.id.get('q')!);
    // a is followed by p, q and r.
    expect(table.get(q, F.both_follow)).toBeCloseTo(1 / Math.log(Math.E + 3), 12);
    expect(table.friend[q]).toBe(-1);
    const list = new Ranker(both.world, EVERY_PATH).rank(both.id.get('p')!, only('both_follow'));
    expect([...list.kind.subarray(0, list.length)]).toEqual([REASON.network, REASON.network]);
  });

  it('sums resource allocation, 1 / degree, over the same paths, and every kind together as Adamic-Adar', () => {
    expect(features('x')!.resource_allocation).toBeCloseTo(1 / 2 + 1 / 1, 12);
    expect(features('x')!.adamic_adar).toBeCloseTo(features('x')!.followee_follows!, 12);
  });

  it('never lists p or whom p follows', () => {
    expect(features('a')).toBeUndefined();
    expect(features('b')).toBeUndefined();
    expect(features('p')).toBeUndefined();
  });

  it('names the friend p follows whose path weighs most (who follows fewest) as the reason', () => {
    const list = ranker.rank(id.get('p')!, only('followee_follows'));
    const x = [...list.candidate.subarray(0, list.length)].indexOf(id.get('x')!);
    expect(list.kind[x]).toBe(REASON.followed_by);
    expect(names[list.subject[x]!]).toBe('b');
  });

  it('names "follows you" for a follower no friend links, and a friend p follows before a follower for one both link', () => {
    const list = ranker.rank(id.get('p')!, only('follows_you'));
    const c = [...list.candidate.subarray(0, list.length)].indexOf(id.get('c')!);
    expect(list.kind[c]).toBe(REASON.follows_you);
  });
});

describe('the order of a list', () => {
  // p follows a; a follows x, y and z; y and z are followed by others too (z most).
  const { id, names, world } = worldOf(['p', 'a', 'x', 'y', 'z', 'o1', 'o2', 'o3'], ['p>a', 'a>x', 'a>y', 'a>z', 'o1>y', 'o1>z', 'o2>z']);
  const ranker = new Ranker(world, EVERY_PATH);
  const listOf = (model: RankingModel, k = 20) => {
    const list = new Ranker(world, { ...EVERY_PATH, topK: k }).rank(id.get('p')!, model);
    return [...list.candidate.subarray(0, list.length)].map((c) => names[c]);
  };

  it('puts equal scores in the order of how many follow the candidate, then the lower id', () => {
    // x, y and z are one path each through a: z has 3 followers, y 2, x 1.
    expect(listOf(only('followee_follows')).slice(0, 3)).toEqual(['z', 'y', 'x']);
  });

  it('fills the places left with the most followed profiles, not p, not whom p follows, not one listed', () => {
    // After x, y, z: o1, o2, o3 are followed by nobody: not popular, not listed.
    expect(listOf(only('followee_follows'))).toEqual(['z', 'y', 'x']);
    const filled = ranker.rank(id.get('o3')!, only('followee_follows'));
    expect([...filled.candidate.subarray(0, filled.length)].map((c) => names[c])).toEqual(['z', 'y', 'a', 'x']);
    expect([...filled.kind.subarray(0, filled.length)]).toEqual([REASON.popular, REASON.popular, REASON.popular, REASON.popular]);
    expect([...filled.score.subarray(0, filled.length)]).toEqual([0, 0, 0, 0]);
  });

  it('keeps the topK best, in order', () => {
    expect(listOf(only('followee_follows'), 2)).toEqual(['z', 'y']);
  });

  it('scores a candidate as the weighted sum of its transformed features', () => {
    const list = ranker.rank(id.get('p')!, DEFAULT_MODEL);
    const x = [...list.candidate.subarray(0, list.length)].indexOf(id.get('x')!);
    const w = (f: (typeof FEATURES)[number]) => DEFAULT_MODEL.weights[F[f]]!;
    const path = pathWeight(3);
    // One path through a (who follows 3): followee_follows, adamic_adar, recent_paths (no times: 1) and resource_allocation 1/3; one follower.
    const expected =
      w('followee_follows') * Math.log1p(path) +
      w('adamic_adar') * Math.log1p(path) +
      w('recent_paths') * Math.log1p(path) +
      w('resource_allocation') * Math.log1p(1 / 3) +
      w('popularity') * Math.log1p(1);
    expect(list.score[x]).toBeCloseTo(expected, 12);
    expect(list.graph[x]).toBeCloseTo(expected, 12);
    expect(transformed(F.walks, 1e-3)).toBeCloseTo(Math.log(2), 12);
  });
});

describe('new followers and time', () => {
  // p follows a (time 10) and b (time 20); c followed p at 15, d at 30: d is new (after p's newest follow).
  const { id, world } = worldOf(['p', 'a', 'b', 'c', 'd', 'x'], ['p>a', 'p>b', 'c>p', 'd>p', 'a>x', 'b>x'], [10, 20, 15, 30, 5, 25]);
  const ranker = new Ranker(world, EVERY_PATH);
  const table = () => ranker.collect(id.get('p')!);

  it('marks a follower who began after p\'s newest follow of its own as new, and an older one not', () => {
    const t = table();
    expect(t.get(t.existingSlot(id.get('d')!), F.new_follower)).toBe(1);
    expect(t.get(t.existingSlot(id.get('c')!), F.new_follower)).toBe(0);
  });

  it("weighs a path by how near (in follows) its last follow is to p's newest follow", () => {
    // Six follows at times 5, 10, 15, 20, 25, 30: moments 2000 × (before + ½) / 6.
    const moments = world.moments!.outMoments;
    const momentOf = (from: string, to: string) => moments[[...world.follows.following(id.get(from)!)].indexOf(id.get(to)!) + world.follows.out.offsets[id.get(from)!]!]!;
    expect(momentOf('p', 'b')).toBe(Math.round((2000 * 3.5) / 6));
    expect(momentOf('a', 'x')).toBe(Math.round((2000 * 0.5) / 6));
    const t = table();
    const x = t.existingSlot(id.get('x')!);
    const newest = momentOf('p', 'b');
    const expected = pathWeight(1) * recencyFactor(Math.abs(newest - momentOf('a', 'x'))) + pathWeight(1) * recencyFactor(Math.abs(newest - momentOf('b', 'x')));
    expect(t.get(x, F.recent_paths)).toBeCloseTo(expected, 12);
    expect(recencyFactor(0)).toBe(1);
  });
});

describe('the walks (personalized PageRank by forward push)', () => {
  // A chain p > a > b > c and a > c: c is three steps away from p by the chain, two through a.
  const { id, names, world } = worldOf(['p', 'a', 'b', 'c', 'd'], ['p>a', 'a>b', 'b>c', 'a>c', 'c>d']);

  it('reaches beyond two hops, the mass each node keeps being the restart share of the walks through it', () => {
    const ranker = new Ranker(world, { ...EVERY_PATH, walkBudget: 10_000 });
    const table = ranker.collect(id.get('p')!);
    const mass = (n: string) => table.get(table.existingSlot(id.get(n)!), F.walks);
    // By hand (restart 0.15, no dangling mass comes back): a gets 0.85, splits 0.85·0.85 between b and c;
    // c keeps its share from a plus b's; d (four steps) gets what c passes on.
    const toA = 0.85;
    const toB = (0.85 * toA) / 2;
    const toC = (0.85 * toA) / 2 + 0.85 * toB;
    const toD = 0.85 * toC;
    expect(mass('b')).toBeCloseTo(0.15 * toB, 4);
    expect(mass('c')).toBeCloseTo(0.15 * toC, 4);
    expect(mass('d')).toBeCloseTo(0.15 * toD, 4);
    expect(names.filter((n) => table.existingSlot(id.get(n)!) >= 0).sort()).toEqual(['b', 'c', 'd']);
  });

  it('reads no more follows than its budget', () => {
    const ranker = new Ranker(world, { ...EVERY_PATH, walkBudget: 1 });
    const table = ranker.collect(id.get('p')!);
    // One follow read (p's own, to a, whom p follows): no walk went further. The paths still
    // name b and c.
    expect(table.size).toBe(2);
    for (let slot = 0; slot < table.size; slot++) expect(table.get(slot, F.walks)).toBe(0);
  });
});

describe('the budget of paths', () => {
  // Three hops of p whose lists are 1, 4 and 9 long (follows and followers together).
  const { id, world } = worldOf(
    ['p', 'a', 'b', 'c', ...Array.from({ length: 9 }, (_, i) => `t${i}`)],
    ['p>a', 'p>b', 'p>c', 'a>t0', 'b>t0', 'b>t1', 'b>t2', 'b>t3', ...Array.from({ length: 9 }, (_, i) => `c>t${i}`)],
  );

  it("lets every hop pass on the same number h of its list, the largest with Σ min(list, h) within the cap", () => {
    const own = ownFactsOf(world, id.get('p')!);
    // Lists: a's follows 1 and followers 1 (p); b 4 and 1; c 9 and 1. Σ min(len, 3) = 1+1+3+1+3+1 = 10.
    expect(hopShare(world.follows, own, 10)).toBe(3);
    expect(hopShare(world.follows, own, 9)).toBe(2);
    expect(hopShare(world.follows, own, 1_000)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("water-fills the run's budget into one cap, never below the least each profile gets", () => {
    const budget = pathBudget(world.follows, 1_000_000, 0);
    expect(budget.every).toBe(true);
    const tight = pathBudget(world.follows, 10, 0);
    expect(tight.every).toBe(false);
    expect(tight.pathsKept).toBeLessThanOrEqual(10);
    expect(pathBudget(world.follows, 10, 5).cap).toBe(5);
  });
});
