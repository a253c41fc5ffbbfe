import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASELINES } from '../../pipeline/evaluate/link-prediction-baselines.ts';
import { runSoulgraph } from '../support/child-process.ts';
import { runCliInProcess } from '../support/cli-in-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

/** The Markdown table eval prints: per method, its metrics at each k. */
function tableRows(output: string): Map<string, { precision: number; recall: number; ndcg: number }[]> {
  const methods = ['soulgraph', ...BASELINES].join('|');
  return new Map(
    output
      .split('\n')
      .filter((l) => new RegExp(`^\\| (${methods}) \\|`).test(l))
      .map((l) => l.split('|').map((c) => c.trim()).slice(1, -1))
      .map(([method, ...cells]) => {
        const at: { precision: number; recall: number; ndcg: number }[] = [];
        for (let i = 0; i < cells.length; i += 3) at.push({ precision: Number(cells[i]), recall: Number(cells[i + 1]), ndcg: Number(cells[i + 2]) });
        return [method!, at];
      }),
  );
}

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
  it('runs the production engine on a graph with edges held out and scores it against the baselines', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'cliques.txt');
    await writeFile(edges, cliques());
    const { code, output } = await runSoulgraph(['eval', '--edges', edges, '--holdout', '0.2', '--seed', '3', '--k', '5', '--out', dir], env.env);
    expect(code, output).toBe(0);

    const rows = tableRows(output);
    expect([...rows.keys()]).toEqual(['soulgraph', ...BASELINES]);
    expect(rows.get('soulgraph')![0]!.recall).toBeGreaterThan(0.9);
    expect(rows.get('soulgraph')![0]!.recall).toBeGreaterThan(rows.get('popularity')![0]!.recall);

    const table = path.join(dir, 'cliques-holdout0.2-seed3.md');
    expect(readFileSync(table, 'utf8')).toContain('| soulgraph |');
    expect(readFileSync(path.join(dir, 'cliques-holdout0.2-seed3.svg'), 'utf8')).toMatch(/^<svg[\s\S]*recall@5[\s\S]*<\/svg>\n$/);
  });

  it('takes --keep-database, which older scripts pass, and says it does nothing now: the evaluation runs in memory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'cliques.txt');
    await writeFile(edges, cliques());
    const { code, output } = await runSoulgraph(['eval', '--edges', edges, '--holdout', '0.2', '--seed', '3', '--k', '5', '--out', dir, '--keep-database'], env.env);
    expect(code, output).toBe(0);
    expect(output).toContain('--keep-database: the evaluation runs in memory and keeps no database');
    expect(tableRows(output).get('soulgraph')![0]!.recall).toBeGreaterThan(0.9);
  }, 120_000);

  it('scores a split made elsewhere (--train, --test) and writes every list (--lists), with the metrics worked out by hand', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    // Two cliques of four, {0, 1, 2, 3} and {10, 11, 12, 13}; hidden: 0 -> 1 and 10 -> 13.
    const train: string[] = ['# training follows'];
    for (const clique of [[0, 1, 2, 3], [10, 11, 12, 13]]) {
      for (const a of clique) for (const b of clique) if (a !== b && !(a === 0 && b === 1) && !(a === 10 && b === 13)) train.push(`${a}\t${b}`);
    }
    await writeFile(path.join(dir, 'train.txt'), `${train.join('\n')}\n`);
    await writeFile(path.join(dir, 'test.txt'), '0\t1\n10\t13\n');
    const lists = path.join(dir, 'lists.tsv');
    const { code, output } = await runSoulgraph(
      ['eval', '--train', path.join(dir, 'train.txt'), '--test', path.join(dir, 'test.txt'), '--k', '1,5', '--lists', lists, '--out', dir],
      env.env,
    );
    expect(code, output).toBe(0);
    const rows = tableRows(output);
    // Friends of friends and every path method: the one person 0 (10) does not follow in its
    // clique is its only candidate, the hidden one.
    for (const method of ['soulgraph', 'adamic-adar', 'follow-back-then-adamic-adar', 'personalized-pagerank']) {
      expect(rows.get(method), method).toEqual([
        { precision: 1, recall: 1, ndcg: 1 },
        { precision: 0.2, recall: 1, ndcg: 1 },
      ]);
    }
    // Popularity: the three others of the other clique (followed by 3 each) come first, then
    // 1 and 13 (followed by 2 each; 1 first, as it appears first): 0 finds 1 at rank 4, 10
    // finds 13 at rank 5. nDCG@5 = (1/log2(5) + 1/log2(6)) / 2 = 0.4088.
    expect(rows.get('popularity')).toEqual([
      { precision: 0, recall: 0, ndcg: 0 },
      { precision: 0.2, recall: 1, ndcg: 0.4088 },
    ]);
    const written = readFileSync(lists, 'utf8').split('\n');
    expect(written[0]).toBe('method\tuser\trank\tcandidate');
    // soulgraph's lists go on with the most followed profiles (3 followers, then 2, the lower
    // id first) that the user neither follows nor has listed, cut at the largest k.
    expect(written.filter((l) => l.startsWith('soulgraph\t'))).toEqual([
      ...['1', '10', '11', '12', '13'].map((c, i) => `soulgraph\t0\t${i + 1}\t${c}`),
      ...['13', '0', '2', '3', '1'].map((c, i) => `soulgraph\t10\t${i + 1}\t${c}`),
    ]);
    expect(written.filter((l) => l.startsWith('popularity\t0\t')).map((l) => l.split('\t')[3])).toEqual(['10', '11', '12', '1', '13']);
    expect(readFileSync(path.join(dir, 'train-given.md'), 'utf8')).toContain('| personalized-pagerank |');
    // Against the best baseline (the first of those at the top), user by user: both find each
    // hidden follow first, so the difference is nothing for every user.
    expect(output).toContain(
      'R@1: soulgraph 1.0000, best baseline follow-back-then-adamic-adar 1.0000 (× 1.000); paired difference +0.0000, 95% interval +0.0000 to +0.0000 (0 users better, 0 worse): the same for every user',
    );
    expect(readFileSync(path.join(dir, 'train-given.md'), 'utf8')).toContain('| P@5 | 0.2000 | follow-back-then-adamic-adar | 0.2000 | × 1.000 | +0.0000 (+0.0000 to +0.0000) | 0 / 0 | the same for every user |');
    expect(output).toContain('soulgraph: 0 of the scored users with a follow either way in training got an empty list');
    // Both hidden follows are returns (1 follows 0, 13 follows 10), and soulgraph lists both.
    expect(output).toContain('where the hidden follows lie (mean share per user): returns 100.0 %, two hops 0.0 %, farther 0.0 %');
    expect(readFileSync(path.join(dir, 'train-given.md'), 'utf8')).toContain('| soulgraph | 1.0000 | 0.0000 | 0.0000 | 1.0000 |');
    // 22 follows: the fit holds out each profile's newest (a tenth, at least one), far fewer
    // than it needs (MIN_FOUND), so the default weights rank; and the paths of two hops in
    // all are well within the run's budget: every profile gets every one.
    expect(output).toMatch(/^fitted: default weights \(follows_you 3\.00, .*\); of \d+ held-out follows of \d+ profiles, .*; every path of every profile \(\d+ in all\)$/m);
  }, 120_000);

  it('refuses a header line with its line number and exits with 2; with --header it skips it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'header.txt');
    await writeFile(edges, 'id_1\tid_2\n1\t2\n');
    const { code, output } = await runCliInProcess(['eval', '--edges', edges], env.env);
    expect(code).toBe(2);
    expect(output).toContain('header.txt:1: node ids are whole numbers or 0x-hex, got "id_1\\tid_2" (a header line? pass --header, or start it with # or %)');
    const skipped = await runSoulgraph(['eval', '--edges', edges, '--header', '--k', '1', '--out', dir], env.env);
    expect(skipped.code, skipped.output).toBe(0);
    expect(skipped.output).toContain('2 nodes, 1 follows');
  });

  it('names a malformed edge list line and exits with 2', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-test-'));
    const edges = path.join(dir, 'bad.txt');
    await writeFile(edges, '1\t2\nthree words here\n');
    const { code, output } = await runCliInProcess(['eval', '--edges', edges], env.env);
    expect(code).toBe(2);
    expect(output).toContain('bad.txt:2: node ids are whole numbers or 0x-hex');
    expect(existsSync(path.join(dir, 'bad-holdout0.1-seed1.md'))).toBe(false);
  });
});
