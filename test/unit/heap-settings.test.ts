/**
 * api/heap-settings.ts: the API process lets its old generation grow to three times what
 * survived the last mark-compact, whatever V8 would pick on its own (1.1–1.4 times in the
 * API under load, 4 times in this test's allocation pattern). Measured in a child process
 * from V8's own --trace-gc lines.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../support/old-generation-growth.ts', import.meta.url));

/**
 * Each mark-compact's heap size at its start over the size the previous one left, from the
 * third on: the second starts from the limit V8 sets at startup, not from a factor.
 */
async function growthFactors(args: string[]): Promise<number[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--trace-gc', CHILD, ...args], { maxBuffer: 64 << 20 });
  const compactions = [...stdout.matchAll(/Mark-Compact(?: \(\w+\))? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g)].map((m) => ({
    before: Number(m[1]),
    after: Number(m[2]),
  }));
  expect(stdout).toContain('done 300000');
  return compactions.slice(2).map((c, i) => c.before / compactions[i + 1]!.after);
}

describe('the API heap settings', () => {
  it('let the old generation grow to about three times what survived the last mark-compact', async () => {
    const factors = await growthFactors(['apply']);
    expect(factors.length).toBeGreaterThanOrEqual(1);
    for (const factor of factors) {
      expect(factor).toBeGreaterThan(2.5);
      // The heap at the start also holds the young generation: a little over 3.
      expect(factor).toBeLessThan(3.9);
    }
  });
});
