/**
 * docs/scaling.md's sizing table is arithmetic on the measurements the page quotes: this
 * recomputes every cell from them, so that a new measurement pasted into the page cannot
 * leave the plan computed from an old one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');

/** The cells of the table row whose first cell starts with `label`. */
function row(label: string): string[] {
  const line = doc.split('\n').find((l) => l.startsWith(`| ${label}`));
  if (!line) throw new Error(`docs/scaling.md has no row "${label}"`);
  return line.split('|').slice(2, -1).map((cell) => cell.trim());
}

const number = (text: string) => Number(text.replace(/,/g, '').replace(/[^\d.]/g, ''));
const perProfile = (label: string) => number(row(label)[3]!);
const seconds = (cell: string) => cell.split('+').reduce((sum, part) => sum + number(part), 0);

const bytes = (b: number) => (b >= 1e12 ? `${(b / 1e12).toFixed(2)} TB` : `${Math.round(b / 1e9)} GB`);
const coreHours = (s: number) => (s / 3600 < 10 ? (s / 3600).toFixed(1) : Math.round(s / 3600).toLocaleString('en-US'));
const coreSeconds = (s: number) => Math.round(s).toLocaleString('en-US');

describe('docs/scaling.md', () => {
  const chBytes = perProfile('all of ClickHouse') + perProfile('`recommendations`');
  const redisBytes = perProfile('serving copy in Redis');
  const [bucketSmall, bucketLarge] = row('a bucket: compute + publish').slice(0, 2).map(seconds) as [number, number];
  const [setSmall, setLarge] = row('working set (until').slice(0, 2).map(number) as [number, number];
  const growth = bucketLarge / bucketSmall;
  const slope = (bucketLarge - bucketSmall) / 0.9; // core-s per million profiles, from 0.1 M to 1 M
  const base = bucketSmall - slope * 0.1;
  const sizes = [10, 100]; // millions of profiles
  const power = sizes.map((m) => bucketLarge * growth ** Math.log10(m));
  const linear = sizes.map((m) => base + slope * m);

  it('states the growth it reads from the two sizes', () => {
    expect(row('a bucket: compute + publish')[2]).toBe(`× ${growth.toFixed(2)}`);
    expect(doc).toContain(`multiplies a bucket's cost by ${growth.toFixed(2)}`);
    expect(doc).toContain(`a bucket costs ${base.toFixed(1)} core-s plus\n${slope.toFixed(1)} core-s per million`);
  });

  it('sizes disk, Redis and buckets from the bytes and profiles per bucket measured', () => {
    expect(row('ClickHouse, one replica, two snapshots')).toEqual(sizes.map((m) => bytes(m * 1e6 * chBytes)));
    expect(row('serving copy in Redis at depth 100')).toEqual(sizes.map((m) => bytes(m * 1e6 * redisBytes)));
    expect(row('buckets of 25,000')).toEqual(sizes.map((m) => (m * 40).toLocaleString('en-US')));
  });

  it("reads the third size's ratios from its measurements, next to what each reading predicts for 3 × the profiles", () => {
    const third = (label: string) => doc.split('\n').filter((l) => l.startsWith(`| ${label}`)).at(-1)!.split('|').slice(2, -1).map((cell) => cell.trim());
    const bucket = third('a bucket: compute + publish');
    expect(bucket[2]).toBe(`× ${(seconds(bucket[1]!) / seconds(bucket[0]!)).toFixed(2)}`);
    expect(bucket[3]).toBe(`× ${(growth ** Math.log10(3)).toFixed(2)}`);
    expect(bucket[4]).toBe(`× ${((base + slope * 0.3) / (base + slope * 0.1)).toFixed(2)}`);
    const workingSet = third('working set (until');
    expect(workingSet[2]).toBe(`× ${(number(workingSet[1]!) / number(workingSet[0]!)).toFixed(2)}`);
    expect(workingSet[3]).toBe(`× ${((setLarge / setSmall) ** Math.log10(3)).toFixed(2)}`);
    const run = third('run');
    expect(run[2]).toBe(`× ${(number(run[1]!) / number(run[0]!)).toFixed(2)}`);
  });

  it("computes each 1-against-2-shards table's critical path from its working set and busiest node, and states both ratios", () => {
    const shardRows = (shards: number) => doc.split('\n').filter((l) => l.startsWith(`| ${shards} | `)).map((l) => l.split('|').slice(2, -1).map(seconds));
    const [ones, twos] = [shardRows(1), shardRows(2)];
    expect(ones.length).toBeGreaterThanOrEqual(2);
    expect(twos.length).toBe(ones.length);
    const prose = doc.replace(/\s+/g, ' ');
    ones.forEach((one, i) => {
      const two = twos[i]!;
      // Columns: run, working set, job-seconds over all nodes, busiest node, critical path (MATERIALIZE_CONCURRENCY 2).
      // (The bench adds unrounded seconds: a tenth apart at most.)
      for (const r of [one, two]) expect(Math.abs(r[4]! - (r[1]! + r[3]! / 2))).toBeLessThan(0.11);
      expect(prose).toContain(`× ${(two[3]! / one[3]!).toFixed(2)}`);
      expect(prose).toContain(`× ${(two[4]! / one[4]!).toFixed(2)}`);
    });
  });

  it('costs the buckets and the working set by both readings', () => {
    expect(row('a bucket, power / linear')).toEqual(sizes.map((_, i) => `${coreSeconds(power[i]!)} / ${coreSeconds(linear[i]!)} core-s`));
    expect(row('all buckets, power / linear')).toEqual(
      sizes.map((m, i) => `${coreHours(m * 40 * power[i]!)} / ${coreHours(m * 40 * linear[i]!)} core-h`),
    );
    const workingSet = sizes.map((m) => setLarge * (setLarge / setSmall) ** Math.log10(m));
    expect(row('working set on one node')).toEqual([`${Math.round(workingSet[0]! / 60)} min`, `${(workingSet[1]! / 3600).toFixed(1)} h`]);
  });
});
