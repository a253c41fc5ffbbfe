/**
 * Bad files through `soulgraph ingest` (the CLI, for its exit code), one run per file with
 * a workers process of its own beside it: the rejects must be the expected lines, and
 * every good row must be stored once.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChaosStack, ScenarioEnvironment } from './chaos-stack.ts';
import { badInputCases, type BadInputCase } from './bad-input-files.ts';
import { workersServing } from './ingest-queue.ts';
import { exitWithin, startSoulgraph, stopChild, waitFor } from './processes.ts';
import type { ScenarioRow } from './scenario-row.ts';
import { rejectedLines, storedRows } from './stored-rows.ts';

const EXIT_LIMIT_MS = 180_000;

export async function badInputRows(stack: ChaosStack, longLineBytes: number, onRow: (row: ScenarioRow) => void): Promise<ScenarioRow[]> {
  const scenario = await stack.scenarioEnvironment('bad input');
  const dir = path.join(stack.work, 'bad-input');
  await mkdir(dir, { recursive: true });
  const workers = startSoulgraph(['workers', '--kinds', 'transactions'], scenario.env);
  const rows: ScenarioRow[] = [];
  try {
    await waitFor(async () => (await workersServing(scenario.config, 'transactions')) > 0, 60_000, 'the workers');
    for (const badCase of badInputCases(longLineBytes)) {
      const row = await ingestBadFile(scenario, dir, badCase);
      rows.push(row);
      onRow(row);
    }
    return rows;
  } finally {
    await stopChild(workers);
  }
}

async function ingestBadFile(scenario: ScenarioEnvironment, dir: string, badCase: BadInputCase): Promise<ScenarioRow> {
  const row: ScenarioRow = { scenario: badCase.name, expected: badCase.goodKeys, notes: [], problems: [] };
  const file = path.join(dir, badCase.fileName);
  await writeFile(file, badCase.content);
  // What the CLI records as the source: the path relative to where it runs (ours).
  const source = path.relative(process.cwd(), file);
  const ingest = startSoulgraph(['ingest', 'transactions', file, '--chunk-rows', '500', '--workers', 'no'], scenario.env);
  const exit = await exitWithin(ingest, EXIT_LIMIT_MS);
  if (exit === 'still running') {
    row.exitCodes = ['hung'];
    row.problems.push(`soulgraph ingest still running after ${EXIT_LIMIT_MS / 1000} s: killed`);
    return row;
  }
  row.exitCodes = [String(exit.code ?? exit.signal)];
  row.timeToExitMs = exit.afterMs;
  if (exit.code !== badCase.exitCode) row.problems.push(`exit ${exit.code ?? exit.signal}, expected ${badCase.exitCode}:\n${ingest.output().trim().split('\n').slice(-8).join('\n')}`);
  if (exit.code === 2) row.notes.push(`usage error: ${ingest.output().trim().split('\n').pop()}`);

  const stored = await storedRows(scenario.config, 'transactions', ['chain_id', 'hash'], badCase.chainId);
  Object.assign(row, stored);
  if (stored.found !== badCase.goodKeys) row.problems.push(`${stored.found} good rows stored, ${badCase.goodKeys} expected`);
  if (stored.duplicates !== 0) row.problems.push(`${stored.duplicates} duplicate keys under FINAL`);

  const rejects = await rejectedLines(scenario.config, 'transactions', source);
  const lines = rejects.map((r) => r.line);
  if (lines.join(',') !== badCase.rejectedLines.join(',')) {
    row.problems.push(`rejected lines [${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ', ...' : ''}] (${lines.length}), expected [${badCase.rejectedLines.join(', ')}]`);
  }
  row.notes.push(
    rejects.length === 0 ? 'no rejects' : `rejects: ${rejects.slice(0, 3).map((r) => `line ${r.line}: ${r.reason.slice(0, 90)}`).join('; ')}`,
  );
  return row;
}
