import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSoulgraph } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

/**
 * Ten cliques of six, every member following every other: a hidden edge inside a clique is
 * always reachable through the clique's other members, so a recommender that reads the follow
 * graph must find most of them, and popularity (everyone is equally followed) cannot.
 */
function cliques(): string {
  const lines = ['# ten cliques of six'];
  for (let c = 0; c < 10; c++) {
    for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) if (a !== b) lines.push(`${c * 6 + a}\t${c * 6 + b}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('soulgraph eval', () => {
  it('runs the production materialization on a graph with edges held out and scores it against the baselines', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'cliques.txt');
    await writeFile(edges, cliques());
    const { code, output } = await runSoulgraph(['eval', '--edges', edges, '--holdout', '0.2', '--seed', '3', '--k', '5', '--out', dir], env.env);
    expect(code, output).toBe(0);

    const rows = new Map(
      output
        .split('\n')
        .filter((l) => /^\| (soulgraph|common-neighbours|adamic-adar|popularity) \|/.test(l))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((cells) => [cells[1]!, { precision: Number(cells[2]), recall: Number(cells[3]), ndcg: Number(cells[4]) }]),
    );
    expect([...rows.keys()]).toEqual(['soulgraph', 'common-neighbours', 'adamic-adar', 'popularity']);
    expect(rows.get('soulgraph')!.recall).toBeGreaterThan(0.9);
    expect(rows.get('soulgraph')!.recall).toBeGreaterThan(rows.get('popularity')!.recall);

    const table = path.join(dir, 'cliques-holdout0.2-seed3.md');
    expect(readFileSync(table, 'utf8')).toContain('| soulgraph |');
    expect(readFileSync(path.join(dir, 'cliques-holdout0.2-seed3.svg'), 'utf8')).toMatch(/^<svg[\s\S]*recall@5[\s\S]*<\/svg>\n$/);
  });

  it('names a malformed edge list line and exits with 2', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'bad.txt');
    await writeFile(edges, '1\t2\nthree words here\n');
    const { code, output } = await runSoulgraph(['eval', '--edges', edges], env.env);
    expect(code).toBe(2);
    expect(output).toContain('bad.txt:2: expected "<from><TAB><to>"');
    expect(existsSync(path.join(dir, 'bad-holdout0.1-seed1.md'))).toBe(false);
  });
});
