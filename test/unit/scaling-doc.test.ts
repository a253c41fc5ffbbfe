/**
 * docs/scaling.md's sizing table is arithmetic on the measurements the page quotes: this
 * recomputes every cell from them, so that a new measurement pasted into the page cannot
 * leave the plan computed from an old one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
const prose = doc.replace(/\s+/g, ' ');

/** The cells of the table row whose first cell starts with `label`. */
function row(label: string): string[] {
  const line = doc.split('\n').find((l) => l.startsWith(`| ${label}`));
  if (!line) throw new Error(`docs/scaling.md has no row "${label}"`);
  return line.split('|').slice(2, -1).map((cell) => cell.trim());
}

const number = (text: string) => Number(text.replace(/,/g, '').replace(/[^\d.]/g, ''));
/** A per-profile cell, "a + b B" summed. */
const sum = (cell: string) => cell.split('+').reduce((total, part) => total + number(part), 0);
const bytes = (b: number) => (b >= 1e12 ? `${(b / 1e12).toFixed(2)} TB` : `${Math.round(b / 1e9)} GB`);
/** One decimal below 10, else whole: 1.7, 17. */
const roughly = (x: number) => (x < 10 ? x.toFixed(1) : String(Math.round(x)));

describe('docs/scaling.md', () => {
  const sizes = [10e6, 100e6];
  const chBytes = sum(row('all of ClickHouse')[1]!) + sum(row('`recommendations`')[1]!);
  const redisBytes = sum(row('serving copy in Redis, SERVING_DEPTH 100')[1]!);
  const follows = number(/about (\d+) in-app follows/.exec(prose)![1]!);
  const perFollow = number(/\*\*(\d+) B per follow\*\*/.exec(prose)![1]!);
  const perProfile = number(/about (\d+) B; the signals add/.exec(prose)![1]!);
  const [coreSeconds, per] = /(\d+) core-s per (\d+) k on this machine/.exec(prose)!.slice(1).map(Number) as [number, number];

  it('sizes disk and Redis from the bytes per profile measured at 100 k', () => {
    expect(doc).toContain(`| ClickHouse, one replica, two snapshots (× ${chBytes.toLocaleString('en-US')} B) |`);
    expect(row('ClickHouse, one replica, two snapshots')).toEqual(sizes.map((n) => bytes(n * chBytes)));
    expect(doc).toContain(`| serving copy in Redis at depth 100 (× ${redisBytes.toLocaleString('en-US')} B) |`);
    expect(row('serving copy in Redis at depth 100')).toEqual(sizes.map((n) => bytes(n * redisBytes)));
  });

  it("sizes a rank worker's world from the bytes per follow and per profile", () => {
    expect(doc).toContain(`| a rank worker's world (× ${follows} follows × ${perFollow} B + ${perProfile} B) |`);
    expect(row("a rank worker's world")).toEqual(sizes.map((n) => bytes(n * (follows * perFollow + perProfile))));
    expect(prose).toContain(`the world is ${bytes(100e6 * (follows * perFollow + perProfile))} per worker`);
  });

  it('costs the ranking from its core-seconds per profile, on 64 cores', () => {
    const hours = sizes.map((n) => (n / (per * 1e3)) * coreSeconds / 3600);
    expect(row('ranking, core-hours')).toEqual(hours.map(roughly));
    expect(row('ranking on 4 workers of 16 cores')).toEqual(hours.map((h) => `${roughly((h * 60) / 64)} min`));
  });
});
