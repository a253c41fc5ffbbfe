/**
 * The checks of `npm run chaos` (chaos/), which itself is not part of npm test: the bad
 * files hold the lines their expectations name, a stall's verdict, and the table.
 */
import { describe, expect, it } from 'vitest';
import { badInputCases, GOOD_ROWS } from '../../chaos/bad-input-files.ts';
import type { Answer } from '../../chaos/client-load.ts';
import { formatChaosTable } from '../../chaos/scenario-row.ts';
import { judgeStall } from '../../chaos/stalls-under-load.ts';

/** The file's physical lines, 1-based as ingest_rejects counts them, without BOM and line ends. */
function physicalLines(content: Buffer): string[] {
  const text = content.subarray(content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0).toString('latin1');
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

describe('the bad input files of npm run chaos', () => {
  const cases = badInputCases(1_000);

  it('holds, besides the lines expected rejected and a CSV header, only good rows: as many distinct as expected stored', () => {
    for (const badCase of cases) {
      const lines = physicalLines(badCase.content);
      const header = badCase.fileName.endsWith('.csv') && lines.length > 0 ? 1 : 0;
      const good = lines.filter((_, i) => i >= header && !badCase.rejectedLines.includes(i + 1));
      expect(new Set(good).size, badCase.name).toBe(badCase.goodKeys);
      for (const line of good) expect(line, badCase.name).toContain(`0x${'0'.repeat(20)}`);
      for (const rejected of badCase.rejectedLines) expect(lines[rejected - 1], badCase.name).not.toContain(`0x${'0'.repeat(20)}`);
    }
  });

  it('covers every kind of bad file in both formats, each bad line half way through', () => {
    expect(cases.map((c) => c.name)).toEqual(
      ['CSV', 'JSONL'].flatMap((format) =>
        ['stray quote', 'unclosed quote', 'binary bytes', 'BOM', 'CRLF', 'empty file', 'duplicate lines', 'very long line'].map((kind) => `${format} ${kind}`),
      ),
    );
    for (const badCase of cases.filter((c) => c.rejectedLines.length > 0)) {
      expect(badCase.rejectedLines[0]!).toBeGreaterThan(GOOD_ROWS / 4);
      expect(badCase.rejectedLines[0]!).toBeLessThan((GOOD_ROWS * 3) / 4);
    }
    expect(cases.find((c) => c.name === 'CSV very long line')!.content.length).toBeGreaterThan(1_000);
  });
});

const answer = (outcome: string, sentAt: number, answeredAt = sentAt + 5): Answer => ({ route: 'recommend', outcome, sentAt, answeredAt });

describe('the verdict on a stall', () => {
  it('passes 200s and 503/10503s that end soon after SIGCONT, and says when they ended', () => {
    const verdict = judgeStall([answer('200/0', 0), answer('503/10503', 1_000, 12_500), answer('200/0', 13_000), answer('200/0', 17_000)], 500, 11_000);
    expect(verdict.problems).toEqual([]);
    expect(verdict.recoveryMs).toBe(1_500);
  });

  it('fails on a 500, a timeout, and errors still coming over 5 s after SIGCONT', () => {
    const verdict = judgeStall(
      [answer('200/0', 0), answer('500/10500', 1_000), answer('timeout', 2_000, 17_000), answer('503/10503', 17_000), answer('200/0', 18_000)],
      500,
      11_000,
    );
    expect(verdict.problems).toEqual([
      '1 answers 500/10500 (recommend); only 200 and 503/10503 are allowed',
      '1 answers timeout (recommend); only 200 and 503/10503 are allowed',
      '1 requests sent over 5 s after SIGCONT still failed',
    ]);
  });
});

describe('the chaos table', () => {
  it('marks a row with problems FAIL and lists its problems under the table', () => {
    const lines = formatChaosTable([
      { scenario: 'kill -9 Redis mid-ingest', expected: 10, found: 10, duplicates: 0, exitCodes: ['1', 'again 0'], timeToExitMs: 4_200, notes: [], problems: [] },
      { scenario: 'SIGSTOP Redis 10 s under load', codes: { '200/0': 90, '500/10500': 3 }, notes: [], problems: ['3 answers 500/10500'] },
    ]);
    expect(lines[1]).toMatch(/^kill -9 Redis mid-ingest\s+10\s+10\s+0\s+1 -> again 0\s+4\.2 s\s+-\s+PASS$/);
    expect(lines[2]).toMatch(/200\/0 x90, 500\/10500 x3\s+FAIL$/);
    expect(lines).toContain('FAIL SIGSTOP Redis 10 s under load: 3 answers 500/10500');
  });
});
