/**
 * docs/quality.md's claims on the dev graphs, held by the suite: on the two quick ones (seed
 * 1; about 20 s and 40 s of eval each on a quiet machine), soulgraph is nowhere behind the
 * best baseline beyond noise, ahead beyond noise where the docs say so, and no scored user
 * with a follow either way gets an empty list. The other graphs and seeds are the docs'
 * commands (minutes each).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSoulgraph } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const data = (file: string) => fileURLToPath(new URL(`../../../shared/data/${file}`, import.meta.url));
const BITCOIN_ALPHA = data('snap-bitcoin-alpha/soc-sign-bitcoinalpha.csv');
const EGO_FACEBOOK = data('snap-facebook/facebook_combined.txt');

interface Comparison {
  baseline: string;
  verdict: string;
}

/** eval's lines "R@50: soulgraph …, best baseline <name> …: <verdict>", by measure. */
async function evaluate(args: string[]): Promise<Map<string, Comparison>> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-quality-'));
  const { code, output } = await runSoulgraph(['eval', ...args, '--seed', '1', '--k', '10,50', '--out', out], env.env);
  expect(code, output).toBe(0);
  expect(output).toContain('soulgraph: 0 of the scored users with a follow either way in training got an empty list');
  const lines = [...output.matchAll(/^([RP]@\d+): soulgraph [\d.]+, best baseline (\S+) .*: (ahead|behind|within noise|the same for every user)$/gm)];
  return new Map(lines.map(([, measure, baseline, verdict]) => [measure!, { baseline: baseline!, verdict: verdict! }]));
}

describe('quality on the dev graphs, seed 1 (docs/quality.md)', () => {
  it('on Bitcoin-Alpha at random: not behind follow-back-then-Adamic-Adar in R@50 or P@10', async () => {
    const at = await evaluate(['--edges', BITCOIN_ALPHA, '--header']);
    for (const measure of ['R@50', 'P@10']) {
      expect(at.get(measure)?.baseline, measure).toBe('follow-back-then-adamic-adar');
      expect(at.get(measure)?.verdict, measure).not.toBe('behind');
    }
  }, 300_000);

  it("on Bitcoin-Alpha's newest follows: ahead of follow-back-then-Adamic-Adar in P@10, not behind in R@50", async () => {
    const at = await evaluate(['--edges', BITCOIN_ALPHA, '--header', '--split', 'time']);
    expect(at.get('P@10')).toEqual({ baseline: 'follow-back-then-adamic-adar', verdict: 'ahead' });
    expect(at.get('R@50')?.verdict).not.toBe('behind');
  }, 300_000);

  it('on ego-Facebook: ahead of resource allocation in P@10, not behind in R@50', async () => {
    const at = await evaluate(['--edges', EGO_FACEBOOK, '--undirected']);
    expect(at.get('P@10')).toEqual({ baseline: 'resource-allocation', verdict: 'ahead' });
    expect(at.get('R@50')?.baseline).toBe('resource-allocation');
    expect(at.get('R@50')?.verdict).not.toBe('behind');
  }, 300_000);
});
