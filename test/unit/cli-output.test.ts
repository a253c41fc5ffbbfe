/** What the CLI prints while it works and when it stops: no noise, no contradictions. */
import { describe, expect, it, vi } from 'vitest';
import { ingestedBytes } from '../../pipeline/cli/ingest.command.ts';
import { lineDisplay } from '../../pipeline/cli/progress-display.ts';
import { exitCodeFor } from '../../pipeline/cli/soulgraph.ts';
import { MissingBinaryError } from '../../shared/local-stack/binaries.ts';

describe('the progress line (no terminal)', () => {
  it('prints the final state once, even when the last update printed it already', () => {
    const lines: string[] = [];
    const display = lineDisplay('materialize', '{done}/{total} buckets', 0, (text) => lines.push(text));
    display.update(1, 1, { done: 1, total: 1 });
    display.stop();
    expect(lines).toEqual(['materialize 100% | 1/1 buckets\n']);
  });

  it('prints a line said meanwhile on its own, and the latest state at the end', () => {
    const lines: string[] = [];
    const display = lineDisplay('buckets', '{done}/{total}', 60_000, (text) => lines.push(text));
    display.update(0, 2, { done: 0, total: 2 });
    display.log('bucket 1/2: 10 profiles');
    display.update(2, 2, { done: 2, total: 2 });
    display.stop();
    expect(lines).toEqual(['buckets 0% | 0/2\n', 'bucket 1/2: 10 profiles\n', 'buckets 100% | 2/2\n']);
  });
});

describe('the ingest bar', () => {
  it('stays at 0 % while nothing is ingested, however far reading got', () => {
    expect(ingestedBytes({ bytesRead: 1_000, rowsRead: 500, rowsDone: 0 })).toBe(0);
    expect(ingestedBytes({ bytesRead: 1_000, rowsRead: 500, rowsDone: 250 })).toBe(500);
    expect(ingestedBytes({ bytesRead: 1_000, rowsRead: 500, rowsDone: 500 })).toBe(1_000);
    expect(ingestedBytes({ bytesRead: 0, rowsRead: 0, rowsDone: 0 })).toBe(0);
  });
});

describe('a command that cannot start', () => {
  it('says what to install when a server binary is missing, without a stack trace, and exits 1', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      expect(exitCodeFor(new MissingBinaryError('clickhouse-server not found.\nInstall the servers'))).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toBe('soulgraph: clickhouse-server not found.\nInstall the servers\n');
  });
});
