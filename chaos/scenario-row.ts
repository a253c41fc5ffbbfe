/**
 * One row of the chaos table per scenario: what was expected and found, how the processes
 * ended, what clients saw, and the problems that make it FAIL (none: PASS).
 */
import { formatTable } from '../pipeline/cli/text-table.ts';

export interface ScenarioRow {
  scenario: string;
  /** Distinct keys in the input. */
  expected?: number;
  /** count() FINAL of the table once the scenario (and its documented recovery) is over. */
  found?: number;
  /** Rows under FINAL beyond one per key: count() FINAL - uniqExact(key). */
  duplicates?: number;
  /** Exit codes of the CLI runs, in order, e.g. ["1", "retry 0"] when the documented recovery ran after the first. */
  exitCodes?: string[];
  /** Of the first CLI run: from its start to its exit, in ms. */
  timeToExitMs?: number;
  /** Answers clients got, by "status/code" ("200/0", "503/10503", "timeout", "socket error"). */
  codes?: Record<string, number>;
  /** What else a reader needs: recovery times, restarts, what was done to recover. */
  notes: string[];
  /** Empty when the row passes. */
  problems: string[];
}

export function passes(row: ScenarioRow): boolean {
  return row.problems.length === 0;
}

/** The answers as "200/0 812, 503/10503 41", most frequent first. */
export function formatCodes(codes: Record<string, number> | undefined): string {
  if (!codes) return '-';
  const entries = Object.entries(codes).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? 'none' : entries.map(([code, n]) => `${code} x${n}`).join(', ');
}

const HEADER = ['scenario', 'expected', 'found', 'dup FINAL', 'exit', 'time to exit', 'codes clients saw', 'result'];

/** The table, then one line per problem of each failed row and the notes of every row. */
export function formatChaosTable(rows: ScenarioRow[]): string[] {
  const cells = rows.map((row) => [
    row.scenario,
    row.expected === undefined ? '-' : String(row.expected),
    row.found === undefined ? '-' : String(row.found),
    row.duplicates === undefined ? '-' : String(row.duplicates),
    row.exitCodes === undefined ? '-' : row.exitCodes.join(' -> '),
    row.timeToExitMs === undefined ? '-' : `${(row.timeToExitMs / 1000).toFixed(1)} s`,
    formatCodes(row.codes),
    passes(row) ? 'PASS' : 'FAIL',
  ]);
  const table = formatTable([HEADER, ...cells]);
  const details = rows.flatMap((row) => [
    ...row.problems.map((problem) => `FAIL ${row.scenario}: ${problem}`),
    ...row.notes.map((note) => `     ${row.scenario}: ${note}`),
  ]);
  return [...table, '', ...details];
}
