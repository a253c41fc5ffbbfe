import { describe, expect, it } from 'vitest';
import { compareWithBestBaseline, comparisonLine, comparisonTableMarkdown } from '../../pipeline/evaluate/best-baseline.ts';
import { pairedDifference, verdictOf } from '../../pipeline/evaluate/paired-difference.ts';
import { perUserMetricsAtK } from '../../pipeline/evaluate/ranking-metrics.ts';

describe('the paired difference of two methods on the same users', () => {
  it('is the mean of the per-user differences with a 95% interval of 1.96 standard errors, worked out by hand', () => {
    // d = 0.5, 0, -0.5, 1: mean 0.25; sample variance (0.0625 + 0.0625 + 0.5625 + 0.5625) / 3;
    // standard error sqrt(variance / 4) = 0.322749; half the interval 0.632588.
    const p = pairedDifference([1, 0.5, 0, 1], [0.5, 0.5, 0.5, 0]);
    expect(p.mean).toBeCloseTo(0.25, 12);
    expect(p.low).toBeCloseTo(0.25 - 1.96 * Math.sqrt(1.25 / 3 / 4), 12);
    expect(p.high).toBeCloseTo(0.25 + 1.96 * Math.sqrt(1.25 / 3 / 4), 12);
    expect([p.better, p.worse, p.users]).toEqual([2, 1, 4]);
    expect(verdictOf(p)).toBe('within noise');
  });

  it('says ahead or behind only where the interval leaves out 0', () => {
    // d = 1, 1, 1, 1, 0.5: mean 0.9, variance 0.2 / 4, standard error 0.1, interval 0.704 to 1.096.
    const ahead = pairedDifference([1, 1, 1, 1, 1], [0, 0, 0, 0, 0.5]);
    expect(ahead.low).toBeCloseTo(0.704, 12);
    expect(verdictOf(ahead)).toBe('ahead');
    expect(verdictOf(pairedDifference([0, 0, 0, 0, 0.5], [1, 1, 1, 1, 1]))).toBe('behind');
  });

  it('calls two methods that score every user alike the same, with an interval of nothing', () => {
    const p = pairedDifference([0.2, 1], [0.2, 1]);
    expect(p).toEqual({ mean: 0, low: 0, high: 0, better: 0, worse: 0, users: 2 });
    expect(verdictOf(p)).toBe('the same for every user');
  });

  it('refuses metrics of different users', () => {
    expect(() => pairedDifference([1, 0], [1])).toThrow('paired metrics need the same users: 2 against 1');
  });
});

describe('the recommender against the best baseline', () => {
  // Users 1, 2, 3 each hide one follow. Recall@1 per user: ours 1, 0, 1; B 0, 1, 0; A 1, 1, 0; C as A.
  const relevant = new Map([
    [1, new Set([10])],
    [2, new Set([20])],
    [3, new Set([30])],
  ]);
  const lists = {
    ours: new Map([[1, [10]], [2, [21]], [3, [30]]]),
    B: new Map([[1, [11]], [2, [20]], [3, [31]]]),
    A: new Map([[1, [10]], [2, [20]], [3, [31]]]),
    C: new Map([[1, [10]], [2, [20]], [3, [31]]]),
  };
  const perUser = new Map(Object.entries(lists).map(([method, byUser]) => [method, [perUserMetricsAtK(byUser, relevant, 1)]]));

  it('picks the baseline with the highest mean per measure, the first listed on a tie, and pairs each user', () => {
    const [recall, precision] = compareWithBestBaseline(perUser, 'ours', [1]);
    // d = 0, -1, 1: mean 0, sample variance 1, standard error sqrt(1/3).
    expect(recall).toMatchObject({ measure: 'R@1', baseline: 'A', verdict: 'within noise' });
    expect(recall!.ours).toBeCloseTo(2 / 3, 12);
    expect(recall!.theirs).toBeCloseTo(2 / 3, 12);
    expect(recall!.difference.high).toBeCloseTo(1.96 * Math.sqrt(1 / 3), 12);
    expect(precision).toMatchObject({ measure: 'P@1', baseline: 'A' });
    expect(comparisonLine(recall!, 'ours')).toBe(
      'R@1: ours 0.6667, best baseline A 0.6667 (× 1.000); paired difference +0.0000, 95% interval -1.1316 to +1.1316 (1 user better, 1 worse): within noise',
    );
    expect(comparisonTableMarkdown([recall!], 'ours').split('\n')[2]).toBe('| R@1 | 0.6667 | A | 0.6667 | × 1.000 | +0.0000 (-1.1316 to +1.1316) | 1 / 1 | within noise |');
  });
});
