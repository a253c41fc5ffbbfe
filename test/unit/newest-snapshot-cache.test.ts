/**
 * The API's memory of the newest ready snapshot: one query per interval, never a request
 * waiting behind it once a value is known.
 */
import { describe, expect, it } from 'vitest';
import { cachedNewestSnapshot } from '../../api/recommend/recommendations.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';

/** A ClickHouse whose snapshot query answers when the test says so. */
function controlledClickHouse() {
  const pending: { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }[] = [];
  const ch = { query: () => new Promise((resolve, reject) => pending.push({ resolve, reject })) } as unknown as ClickHouse;
  const answer = (snapshotId: number) => pending.shift()!.resolve([{ snapshot_id: snapshotId }]);
  const fail = () => pending.shift()!.reject(new Error('ClickHouse down'));
  return { ch, pending, answer, fail };
}

describe('the newest-snapshot cache', () => {
  it('asks ClickHouse once for concurrent first callers', async () => {
    const { ch, pending, answer } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 5_000, () => 0);
    const both = Promise.all([newest(), newest()]);
    expect(pending).toHaveLength(1);
    answer(7);
    expect(await both).toEqual([7, 7]);
  });

  it('answers the old snapshot at once after the interval, and the new one once ClickHouse has said it', async () => {
    let now = 0;
    const { ch, pending, answer } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 5_000, () => now);
    const first = newest();
    answer(7);
    expect(await first).toBe(7);
    now = 5_000;
    expect(await newest()).toBe(7);
    expect(await newest()).toBe(7);
    expect(pending).toHaveLength(1);
    answer(8);
    await Promise.resolve();
    await Promise.resolve();
    expect(await newest()).toBe(8);
  });

  it('waits for ClickHouse instead of answering a snapshot older than two intervals (it may have been dropped since)', async () => {
    let now = 0;
    const { ch, pending, answer } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 5_000, () => now);
    const first = newest();
    answer(1);
    expect(await first).toBe(1);
    now = 3_600_000; // an hour without a request
    let settled: number | undefined;
    const next = newest().then((value) => (settled = value));
    await Promise.resolve();
    expect(settled).toBeUndefined();
    expect(pending).toHaveLength(1);
    answer(3);
    await next;
    expect(settled).toBe(3);
  });

  it('keeps the old snapshot when a refresh fails, and tries again on the next call', async () => {
    let now = 0;
    const { ch, pending, answer, fail } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 5_000, () => now);
    const first = newest();
    answer(7);
    await first;
    now = 5_000;
    expect(await newest()).toBe(7);
    fail();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await newest()).toBe(7);
    expect(pending).toHaveLength(1);
  });

  it('fails the first call when ClickHouse cannot answer it (no value to fall back on)', async () => {
    const { ch, fail } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 5_000, () => 0);
    const first = newest();
    fail();
    await expect(first).rejects.toThrow('ClickHouse down');
  });
});

describe('the newest-snapshot cache with an interval of 0', () => {
  it('asks ClickHouse on every call', async () => {
    const { ch, pending, answer } = controlledClickHouse();
    const newest = cachedNewestSnapshot(ch, 0, () => 0);
    const first = newest();
    answer(7);
    expect(await first).toBe(7);
    const second = newest();
    expect(pending).toHaveLength(1);
    answer(8);
    expect(await second).toBe(8);
  });
});
