import { describe, expect, it } from 'vitest';
import { bucketCount } from '../../pipeline/materialize/bucket-count.ts';

const config = { REC_PROFILES_PER_BUCKET: 25_000, REC_PAIRS_PER_BUCKET: 30_000_000, MATERIALIZE_CONCURRENCY: 2 };

describe('bucketCount', () => {
  it('keeps a world that fits one bucket in one, whatever the concurrency', () => {
    expect(bucketCount({ profiles: 100, estimatedRows: 5_000 }, config)).toBe(1);
    expect(bucketCount({ profiles: 0, estimatedRows: 0 }, { ...config, MATERIALIZE_CONCURRENCY: 3 })).toBe(1);
  });

  it('holds at most REC_PROFILES_PER_BUCKET profiles per bucket', () => {
    expect(bucketCount({ profiles: 100_000, estimatedRows: 0 }, config)).toBe(4);
  });

  it('holds at most about REC_PAIRS_PER_BUCKET evidence rows per bucket', () => {
    // 130 M rows need 5 buckets by size; rounded up to 6, a multiple of the 2 that run at once.
    expect(bucketCount({ profiles: 100_000, estimatedRows: 130_000_000 }, config)).toBe(6);
  });

  it('rounds a count above one up to a multiple of MATERIALIZE_CONCURRENCY, so that no round leaves a slot idle', () => {
    expect(bucketCount({ profiles: 50_001, estimatedRows: 0 }, { ...config, MATERIALIZE_CONCURRENCY: 4 })).toBe(4);
    expect(bucketCount({ profiles: 125_001, estimatedRows: 0 }, { ...config, MATERIALIZE_CONCURRENCY: 3 })).toBe(6);
    expect(bucketCount({ profiles: 125_001, estimatedRows: 0 }, { ...config, MATERIALIZE_CONCURRENCY: 1 })).toBe(6);
  });
});
