/** The quality chart (docs/quality.md): its axis says what the bars measure, without rounding the ticks. */
import { describe, expect, it } from 'vitest';
import { qualityChartSvg } from '../../pipeline/evaluate/quality-chart.ts';

describe('the quality chart', () => {
  it('labels the quarters of a 0.3 axis 0.075 and 0.225, not 0.08 and 0.23', () => {
    const svg = qualityChartSvg('t', [{ method: 'soulgraph', metrics: [{ k: 10, precision: 0.27, recall: 0.1, ndcg: 0.2 }] }]);
    const ticks = [...svg.matchAll(/text-anchor="end">([^<]+)</g)].map((m) => m[1]);
    expect(ticks).toEqual(['0', '0.075', '0.15', '0.225', '0.3']);
  });
});
