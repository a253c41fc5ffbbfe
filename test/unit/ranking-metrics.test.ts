import { describe, expect, it } from 'vitest';
import { averageMetrics, perUserMetricsAtK, type MetricsAtK } from '../../pipeline/evaluate/ranking-metrics.ts';

const metricsAtK = (lists: Map<number, number[]>, relevant: Map<number, Set<number>>, k: number): MetricsAtK => averageMetrics(perUserMetricsAtK(lists, relevant, k), k);

describe('top-k metrics', () => {
  const relevant = new Map([
    [1, new Set([10, 11])],
    [2, new Set([20])],
  ]);

  it('scores hits by position: precision, recall and nDCG worked out by hand', () => {
    // User 1 finds 11 at rank 2 of 2; user 2 finds 20 at rank 1.
    const lists = new Map([
      [1, [12, 11]],
      [2, [20, 21]],
    ]);
    const m = metricsAtK(lists, relevant, 2);
    expect(m.precision).toBeCloseTo((1 / 2 + 1 / 2) / 2, 12);
    expect(m.recall).toBeCloseTo((1 / 2 + 1) / 2, 12);
    const user1 = 1 / Math.log2(3) / (1 + 1 / Math.log2(3));
    expect(m.ndcg).toBeCloseTo((user1 + 1) / 2, 12);
    expect(perUserMetricsAtK(lists, relevant, 2).map((u) => u.recall)).toEqual([1 / 2, 1]);
  });

  it('counts a user without a list as finding nothing, and looks no further than k', () => {
    const m = metricsAtK(new Map([[1, [12, 13, 10]]]), relevant, 2);
    expect(m).toEqual({ k: 2, precision: 0, recall: 0, ndcg: 0 });
  });
});
