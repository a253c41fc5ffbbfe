import { describe, expect, it } from 'vitest';
import type { FollowGraph } from '../../pipeline/evaluate/follow-graph.ts';
import { givenSplit, randomSplit, timeSplit } from '../../pipeline/evaluate/holdout-split.ts';
import { TrainingGraph } from '../../pipeline/evaluate/link-prediction-baselines.ts';

/** 0 follows 1 and 2; 1 and 2 follow 3; 4 follows 3 and 0; 5 follows 1. */
const graph: FollowGraph = {
  nodeIds: ['a', 'b', 'c', 'd', 'e', 'f'],
  from: Uint32Array.from([0, 0, 1, 2, 4, 4, 5]),
  to: Uint32Array.from([1, 2, 3, 3, 3, 0, 1]),
  time: undefined,
  undirected: false,
};

describe('link-prediction baselines', () => {
  const training = new TrainingGraph(6, { from: graph.from, to: graph.to });
  // Undirected neighbours: 0 {1, 2, 4}, 1 {0, 3, 5}, 2 {0, 3}, 3 {1, 2, 4}, 4 {0, 3}, 5 {1}.

  it('common neighbours: 3 shares neighbours 1, 2 and 4 with 0', () => {
    expect(training.topK('common-neighbours', 0, 5)).toEqual([3, 5]);
  });

  it('Adamic-Adar weighs a neighbour by 1 / ln(its degree)', () => {
    // 3: 1/ln 3 + 1/ln 2 + 1/ln 2 = 3.796; 5: 1/ln 3 = 0.910.
    expect(training.topK('adamic-adar', 0, 5)).toEqual([3, 5]);
    // 4's neighbours 0 and 3 (degree 3 each) both lead to 1 and 2: a tie, the lower index first.
    expect(training.topK('adamic-adar', 4, 5)).toEqual([1, 2]);
  });

  it('resource allocation weighs a neighbour by 1 / its degree', () => {
    // 3: 1/3 + 1/2 + 1/2; 5: 1/3.
    expect(training.topK('resource-allocation', 0, 5)).toEqual([3, 5]);
  });

  it('directed Adamic-Adar follows the follows: only whom my followees follow', () => {
    // 0 -> 1 -> 3 and 0 -> 2 -> 3; 5 is a neighbour of 1 only by following it.
    expect(training.topK('directed-adamic-adar', 0, 5)).toEqual([3]);
    expect(training.topK('directed-adamic-adar', 5, 5)).toEqual([3]);
  });

  it('follow back, then Adamic-Adar: my followers I do not follow come first', () => {
    // 4 follows 0; 0 does not follow 4.
    expect(training.topK('follow-back-then-adamic-adar', 0, 5)).toEqual([4, 3, 5]);
    expect(training.topK('follow-back-then-adamic-adar', 0, 2)).toEqual([4, 3]);
    // Nobody follows 5: Adamic-Adar alone (0 and 3 through 1, a tie).
    expect(training.topK('follow-back-then-adamic-adar', 5, 5)).toEqual([0, 3]);
  });

  it('personalized PageRank reaches only what walks along follows reach', () => {
    // From 5: 5 -> 1 -> 3, then 3 follows nobody and the walk restarts at 5.
    expect(training.topK('personalized-pagerank', 5, 5)).toEqual([3]);
    // From 4: 0 and 3, then 1 and 2 with equal weight.
    expect(training.topK('personalized-pagerank', 4, 5)).toEqual([1, 2]);
  });

  it('popularity leaves out the user and whom it follows', () => {
    expect(training.mostFollowed(3)).toEqual([3, 1, 0]);
    // In-degrees: 3 has 3, 1 has 2, 0 and 2 have 1; 0 follows 1 and 2 already.
    expect(training.topK('popularity', 0, 2)).toEqual([3, 4]);
  });
});

describe('holdout splits', () => {
  it('random: hides about the asked share, the same edges for the same seed whatever the edge order', () => {
    const n = 20_000;
    const big: FollowGraph = {
      nodeIds: Array.from({ length: n }, (_, i) => String(i)),
      from: Uint32Array.from({ length: n }, (_, i) => i),
      to: Uint32Array.from({ length: n }, (_, i) => (i * 7 + 1) % n),
      time: undefined,
      undirected: false,
    };
    const split = randomSplit(big, 0.1, 1);
    const hidden = [...split.hidden.values()].reduce((s, h) => s + h.size, 0);
    expect(hidden / n).toBeGreaterThan(0.09);
    expect(hidden / n).toBeLessThan(0.11);
    expect(split.train.from.length + hidden).toBe(n);

    const reversed: FollowGraph = { ...big, from: big.from.slice().reverse(), to: big.to.slice().reverse() };
    const again = randomSplit(reversed, 0.1, 1);
    expect([...again.hidden].sort((a, b) => a[0] - b[0])).toEqual([...split.hidden].sort((a, b) => a[0] - b[0]));
    const other = randomSplit(big, 0.1, 2);
    expect([...other.hidden.keys()].sort()).not.toEqual([...split.hidden.keys()].sort());
  });

  it('random, undirected: a hidden pair is hidden both ways, a kept pair is a follow both ways', () => {
    const pairs: FollowGraph = { nodeIds: ['a', 'b', 'c'], from: Uint32Array.from([0, 1]), to: Uint32Array.from([1, 2]), time: undefined, undirected: true };
    const split = randomSplit(pairs, 0.5, 4);
    for (const [a, set] of split.hidden) for (const b of set) expect(split.hidden.get(b)?.has(a)).toBe(true);
    const hiddenPairs = [...split.hidden.values()].reduce((s, h) => s + h.size, 0) / 2;
    expect(split.train.from.length).toBe(2 * (2 - hiddenPairs));
  });

  it('by time: hides each follower\'s newest round(share x follows)', () => {
    // 0 follows 1, 2, 3, 4 at times 10, 40, 20, 30; 5 follows 1 at 50.
    const timed: FollowGraph = {
      nodeIds: ['0', '1', '2', '3', '4', '5'],
      from: Uint32Array.from([0, 0, 0, 0, 5]),
      to: Uint32Array.from([1, 2, 3, 4, 1]),
      time: Float64Array.from([10, 40, 20, 30, 50]),
      undirected: false,
    };
    const split = timeSplit(timed, 0.5, 1);
    // 0: round(0.5 x 4) = 2 newest, 2 (40) and 4 (30); 5: round(0.5 x 1) = 1, its only follow.
    expect(split.hidden).toEqual(new Map([[0, new Set([2, 4])], [5, new Set([1])]]));
    expect([...split.train.to]).toEqual([1, 3]);
    // The kept follows' times as ranks among all five: 10 is the 1st, 20 the 2nd.
    expect([...split.train.timeRank!]).toEqual([1, 2]);
    expect(() => timeSplit(graph, 0.5, 1)).toThrow(/needs a time on every edge/);
  });

  it('random: gives the run no times, since what it hides is not the newest', () => {
    const timed: FollowGraph = { nodeIds: ['0', '1', '2'], from: Uint32Array.from([0, 1]), to: Uint32Array.from([1, 2]), time: Float64Array.from([10, 20]), undirected: false };
    const split = randomSplit(timed, 0, 1);
    expect([...split.train.to]).toEqual([1, 2]);
    expect(split.train.timeRank).toBeUndefined();
  });

  it('given: trains on one file and hides the other\'s follows that training does not have', () => {
    const ids = ['0', '1', '2', '3'];
    const train: FollowGraph = { nodeIds: ids, from: Uint32Array.from([0, 1]), to: Uint32Array.from([1, 2]), time: undefined, undirected: false };
    const test: FollowGraph = { nodeIds: ids, from: Uint32Array.from([0, 0, 2]), to: Uint32Array.from([1, 3, 0]), time: undefined, undirected: false };
    const split = givenSplit(train, test);
    expect([...split.train.from]).toEqual([0, 1]);
    expect(split.hidden).toEqual(new Map([[0, new Set([3])], [2, new Set([0])]]));
  });
});
