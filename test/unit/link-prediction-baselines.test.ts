import { describe, expect, it } from 'vitest';
import { splitHoldout, type FollowGraph } from '../../pipeline/evaluate/follow-graph.ts';
import { TrainingGraph } from '../../pipeline/evaluate/link-prediction-baselines.ts';

/** 0 follows 1 and 2; 1 and 2 follow 3; 4 follows 3 and 0; 5 follows 1. */
const graph: FollowGraph = {
  nodeIds: ['a', 'b', 'c', 'd', 'e', 'f'],
  from: Uint32Array.from([0, 0, 1, 2, 4, 4, 5]),
  to: Uint32Array.from([1, 2, 3, 3, 3, 0, 1]),
};
const all = Uint32Array.from(graph.from.keys());

describe('link-prediction baselines', () => {
  const training = new TrainingGraph(graph, all);

  it('common neighbours: 3 shares neighbours 1, 2 and 4 with 0', () => {
    // Undirected neighbours of 0: 1, 2, 4. Through 1: 3, 5; through 2: 3; through 4: 3.
    expect(training.topK('common-neighbours', 0, 5, [])).toEqual([3, 5]);
  });

  it('Adamic-Adar weighs a neighbour by 1 / ln(its degree)', () => {
    // Degrees: 1 -> {0, 3, 5} = 3, 2 -> {0, 3} = 2, 4 -> {3, 0} = 2.
    // 3: 1/ln 3 + 1/ln 2 + 1/ln 2 = 3.796; 5: 1/ln 3 = 0.910.
    expect(training.topK('adamic-adar', 0, 5, [])).toEqual([3, 5]);
  });

  it('popularity leaves out the user and whom it follows', () => {
    expect(training.mostFollowed(3)).toEqual([3, 1, 0]);
    // In-degrees: 3 has 3, 1 has 2, 0 and 2 have 1; 0 follows 1 and 2 already.
    expect(training.topK('popularity', 0, 2, training.mostFollowed(6))).toEqual([3, 4]);
  });
});

describe('holdout split', () => {
  it('hides about the asked share, the same edges for the same seed whatever the edge order', () => {
    const n = 20_000;
    const big: FollowGraph = {
      nodeIds: Array.from({ length: n }, (_, i) => String(i)),
      from: Uint32Array.from({ length: n }, (_, i) => i),
      to: Uint32Array.from({ length: n }, (_, i) => (i * 7 + 1) % n),
    };
    const split = splitHoldout(big, 0.1, 1);
    const hidden = [...split.hidden.values()].reduce((s, h) => s + h.size, 0);
    expect(hidden / n).toBeGreaterThan(0.09);
    expect(hidden / n).toBeLessThan(0.11);
    expect(split.train.length + hidden).toBe(n);

    const reversed: FollowGraph = { ...big, from: big.from.slice().reverse(), to: big.to.slice().reverse() };
    const again = splitHoldout(reversed, 0.1, 1);
    expect([...again.hidden].sort((a, b) => a[0] - b[0])).toEqual([...split.hidden].sort((a, b) => a[0] - b[0]));
    const other = splitHoldout(big, 0.1, 2);
    expect([...other.hidden.keys()].sort()).not.toEqual([...split.hidden.keys()].sort());
  });
});
