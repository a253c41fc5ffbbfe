import { describe, expect, it } from 'vitest';
import { hiddenFollowReach, reachLine, reachTableMarkdown } from '../../pipeline/evaluate/hidden-follow-reach.ts';
import { TrainingGraph } from '../../pipeline/evaluate/link-prediction-baselines.ts';
import { averageMetrics, perUserMetricsAtK } from '../../pipeline/evaluate/ranking-metrics.ts';

/**
 * Training: 0 follows 1 and 2; 1 and 2 follow 3; 4 follows 3 and 0; 5 follows 1; 6 follows
 * and is followed by nobody. Undirected neighbours: 0 {1, 2, 4}, 1 {0, 3, 5}, 2 {0, 3},
 * 3 {1, 2, 4}, 4 {0, 3}, 5 {1}, 6 {}.
 */
const training = new TrainingGraph(7, { from: Uint32Array.from([0, 0, 1, 2, 4, 4, 5]), to: Uint32Array.from([1, 2, 3, 3, 3, 0, 1]) });
/** 0 hides 4 (who follows 0: a return), 3 (through 1, 2 and 4: two hops) and 6 (farther); 5 hides 3 (through 1). */
const relevant = new Map([
  [0, new Set([4, 3, 6])],
  [5, new Set([3])],
]);

describe('where the hidden follows lie', () => {
  it('counts a hidden follow as a return, two hops or farther, averaged per user as recall is', () => {
    const reach = hiddenFollowReach(training, relevant, new Map(), 2);
    // 0: a third of each kind; 5: all two hops.
    expect(reach.hidden.returns).toBeCloseTo(1 / 6, 12);
    expect(reach.hidden['two hops']).toBeCloseTo(2 / 3, 12);
    expect(reach.hidden.farther).toBeCloseTo(1 / 6, 12);
    expect(reachLine(reach)).toBe('where the hidden follows lie (mean share per user): returns 16.7 %, two hops 66.7 %, farther 16.7 %');
  });

  it("splits each method's recall at k by where what it found lies", () => {
    const lists = new Map([
      // 0's first two are the return and the two-hop follow; 6 comes too late.
      ['a', new Map([[0, [4, 3, 6]], [5, [0]]])],
      // Finds 0's farther follow and 5's two-hop one.
      ['b', new Map([[0, [6]], [5, [3]]])],
    ]);
    const reach = hiddenFollowReach(training, relevant, lists, 2);
    expect(reach.found.get('a')!.returns).toBeCloseTo(1 / 6, 12);
    expect(reach.found.get('a')!['two hops']).toBeCloseTo(1 / 6, 12);
    expect(reach.found.get('a')!.farther).toBe(0);
    expect(reach.found.get('b')!.returns).toBe(0);
    expect(reach.found.get('b')!['two hops']).toBeCloseTo(1 / 2, 12);
    expect(reach.found.get('b')!.farther).toBeCloseTo(1 / 6, 12);
    // In all: a's R@2 = (2/3 + 0) / 2, b's = (1/3 + 1) / 2.
    expect(reachTableMarkdown(reach).split('\n')).toEqual([
      '|  | returns | two hops | farther | in all |',
      '| --- | ---: | ---: | ---: | ---: |',
      '| hidden follows | 0.1667 | 0.6667 | 0.1667 | 1.0000 |',
      '| a | 0.1667 | 0.1667 | 0.0000 | 0.3333 |',
      '| b | 0.0000 | 0.5000 | 0.1667 | 0.6667 |',
    ]);
    // Each method's parts add up to its recall at k as eval's table computes it.
    for (const [method, byUser] of lists) {
      const parts = reach.found.get(method)!;
      expect(parts.returns + parts['two hops'] + parts.farther, method).toBeCloseTo(averageMetrics(perUserMetricsAtK(byUser, relevant, 2), 2).recall, 12);
    }
  });

  it('counts a return as a return even where a path of two hops links the two as well', () => {
    const mutual = new TrainingGraph(3, { from: Uint32Array.from([1, 0, 1, 2]), to: Uint32Array.from([0, 2, 2, 1]) });
    // 1 follows 0 (a return for 0 -> 1), and 0 and 1 share neighbour 2.
    const reach = hiddenFollowReach(mutual, new Map([[0, new Set([1])]]), new Map(), 1);
    expect(reach.hidden).toEqual({ returns: 1, 'two hops': 0, farther: 0 });
  });
});
