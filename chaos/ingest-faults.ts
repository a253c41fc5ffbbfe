/**
 * Faults during `soulgraph ingest`: the workers process killed with -9 three times, Redis
 * killed with -9, ClickHouse killed with -9, with the default attempts and with one attempt
 * per chunk (the local stack's supervisor starts each server again). Each scenario ingests the same generated transactions into a database of
 * its own, then checks what the docs promise: the CLI ends (exit 0, or 1 with the failed
 * chunks or the interruption named), the documented recovery (`soulgraph retry --all`,
 * or the same command again) completes it, and FINAL holds every input key exactly once.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { generateWorld } from '../pipeline/generate/world-generator.ts';
import type { ChaosStack, ScenarioEnvironment } from './chaos-stack.ts';
import { failedJobs, unfinishedJobs, workersServing } from './ingest-queue.ts';
import { exitWithin, runSoulgraph, startSoulgraph, stopChild, waitFor, type Child } from './processes.ts';
import type { ScenarioRow } from './scenario-row.ts';
import { storedRows } from './stored-rows.ts';

export interface IngestInput {
  file: string;
  /** Distinct (chain_id, hash) in the file: the rows FINAL must hold. */
  expected: number;
}

const CHUNK_ROWS = 5_000;
/** Longer than any healthy run here: an ingest still running then is hung. */
const EXIT_LIMIT_MS = 240_000;
const QUEUE_DRAIN_LIMIT_MS = 180_000;

/** `soulgraph generate` transactions for about `rows` rows, and their distinct keys. */
export async function prepareIngestInput(work: string, rows: number): Promise<IngestInput> {
  const outDir = path.join(work, 'ingest-input');
  const manifest = await generateWorld({ profiles: Math.max(100, Math.round(rows / 9.8)), seed: 21, outDir, kinds: ['transactions'] });
  const file = path.join(outDir, manifest.files.transactions!.file);
  return { file, expected: await distinctKeys(file) };
}

const keyOfLine = z.object({ chainId: z.number(), hash: z.string() });

async function distinctKeys(file: string): Promise<number> {
  const keys = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (!line.trim()) continue;
    const { chainId, hash } = keyOfLine.parse(JSON.parse(line));
    keys.add(`${chainId}:${hash.toLowerCase()}`);
  }
  return keys.size;
}

interface FaultRun {
  stack: ChaosStack;
  scenario: ScenarioEnvironment;
  expected: number;
  ingest: Child;
  /** The workers process running now. */
  workers(): Child;
  /** Starts another workers process (after the last was killed). */
  startWorkers(): Promise<Child>;
  /** Resolves once count() (not FINAL: progress only) reaches `rows`; if the ingest ended first, that is a problem of the row. */
  rowsReach(rows: number): Promise<number>;
}

interface Fault {
  name: string;
  /** Exit codes of the first ingest run that the docs allow after this fault. */
  allowedExits: number[];
  /** Settings of the scenario's processes besides the chaos defaults. */
  settings?: Record<string, string>;
  /** Does the fault; returns notes for the table. */
  run(run: FaultRun): Promise<string[]>;
}

/** A server killed (kill -9) a quarter into the ingest; the local stack's supervisor starts it again. */
function killServerMidIngest(server: 'redis' | 'clickhouse', name: string): Fault {
  return {
    name: `kill -9 ${name} mid-ingest`,
    allowedExits: [0, 1],
    async run(run) {
      const at = await run.rowsReach(Math.floor(run.expected / 4));
      const outageMs = await run.stack.killAndAwaitRestart(server);
      return [`${name} killed at ${at} rows; answering again (supervisor) after ${(outageMs / 1000).toFixed(1)} s`];
    },
  };
}

export const INGEST_FAULTS: Fault[] = [
  {
    name: 'kill -9 workers x3 mid-ingest',
    allowedExits: [0],
    async run(run) {
      const notes: string[] = [];
      for (const quarter of [1, 2, 3]) {
        const at = await run.rowsReach(Math.floor((run.expected * quarter) / 4));
        const workers = run.workers();
        workers.kill('SIGKILL');
        const exit = await workers.exited;
        notes.push(`workers (pid ${workers.pid}) ended on ${exit.signal ?? `exit ${exit.code}`} at ${at} rows`);
        await run.startWorkers();
      }
      return notes;
    },
  },
  killServerMidIngest('redis', 'Redis'),
  killServerMidIngest('clickhouse', 'ClickHouse'),
  {
    // One attempt per chunk: the chunks caught by the outage fail for good, as after a long
    // outage with the default attempts, and the documented repair is what completes the load.
    name: 'kill -9 ClickHouse, 1 attempt/chunk',
    allowedExits: [1],
    settings: { INGEST_JOB_ATTEMPTS: '1' },
    async run(run) {
      const at = await run.rowsReach(Math.floor(run.expected / 4));
      const outageMs = await run.stack.killAndAwaitRestart('clickhouse');
      return [`ClickHouse killed at ${at} rows; answering again (supervisor) after ${(outageMs / 1000).toFixed(1)} s`];
    },
  },
];

export async function runIngestFault(stack: ChaosStack, input: IngestInput, fault: Fault): Promise<ScenarioRow> {
  const row: ScenarioRow = { scenario: fault.name, expected: input.expected, exitCodes: [], notes: [], problems: [] };
  // Short locks: a killed worker's chunks go to the next worker within seconds, not 30 s.
  const scenario = await stack.scenarioEnvironment(fault.name, { INGEST_LOCK_MS: '5000', ...fault.settings });
  const { config, env } = scenario;
  const ingestArgs = ['ingest', 'transactions', input.file, '--chunk-rows', String(CHUNK_ROWS), '--workers', 'no'];
  let workers: Child | undefined;
  const startWorkers = async () => {
    workers = startSoulgraph(['workers', '--kinds', 'transactions'], env);
    await waitFor(async () => (await workersServing(config, 'transactions')) > 0, 60_000, 'a workers process to serve the queue');
    return workers;
  };
  const ch = createClickHouse(config);
  try {
    await startWorkers();
    const ingest = startSoulgraph(ingestArgs, env);
    let ended = false;
    void ingest.exited.then(() => (ended = true));
    const rowsNow = async () => (await ch.query(sql`SELECT count() AS n FROM transactions`, z.object({ n: z.coerce.number() })))[0]!.n;
    const rowsReach = async (rows: number) => {
      let seen = 0;
      await waitFor(async () => ended || (seen = await rowsNow()) >= rows, EXIT_LIMIT_MS, `${rows} rows`);
      if (ended) row.problems.push(`the ingest had ended (at ${seen} rows) before the fault: raise CHAOS_ROWS for a fault mid-ingest`);
      return seen;
    };
    row.notes.push(...(await fault.run({ stack, scenario, expected: input.expected, ingest, workers: () => workers!, startWorkers, rowsReach })));

    const first = await exitWithin(ingest, EXIT_LIMIT_MS);
    if (first === 'still running') {
      row.exitCodes!.push('hung');
      row.problems.push(`soulgraph ingest still running ${EXIT_LIMIT_MS / 1000} s after its start: killed`);
      return row;
    }
    row.timeToExitMs = first.afterMs;
    row.exitCodes!.push(String(first.code ?? first.signal));
    if (first.code === null || !fault.allowedExits.includes(first.code)) {
      row.problems.push(`soulgraph ingest exited with ${first.code ?? first.signal}; allowed: ${fault.allowedExits.join(' or ')}. Output:\n${tail(ingest.output())}`);
    }
    if (first.code === 1) await recover(row, scenario, ingest.output(), ingestArgs);

    await waitFor(async () => (await unfinishedJobs(config, 'transactions')) === 0, QUEUE_DRAIN_LIMIT_MS, 'the queue to drain').catch((error: Error) =>
      row.problems.push(error.message),
    );
    const stored = await storedRows(config, 'transactions', ['chain_id', 'hash']);
    Object.assign(row, stored);
    if (stored.found !== input.expected) row.problems.push(`FINAL holds ${stored.found} rows, the input ${input.expected} keys`);
    if (stored.duplicates !== 0) row.problems.push(`${stored.duplicates} duplicate keys under FINAL`);
    const failedLeft = await failedJobs(config, 'transactions');
    if (failedLeft > 0) row.problems.push(`${failedLeft} failed jobs left after the recovery`);
    return row;
  } finally {
    if (workers) await stopChild(workers);
    await ch.close();
  }
}

/**
 * Exit 1 after a fault, then what docs/ingestion.md says to do: failed chunks are named and
 * `soulgraph retry --all` runs them again; an interrupted run (Redis lost) is run again.
 */
async function recover(row: ScenarioRow, scenario: ScenarioEnvironment, output: string, ingestArgs: string[]): Promise<void> {
  const failed = await failedJobs(scenario.config, 'transactions');
  const interrupted = output.includes('soulgraph: the run stopped before its end');
  if (failed > 0) {
    if (!/FAILED chunk from /.test(output)) row.problems.push(`exit 1 with ${failed} failed jobs, but the summary names no failed chunk`);
    const retry = await runSoulgraph(['retry', '--queue', 'ingest-transactions', '--all'], scenario.env);
    row.exitCodes!.push(`retry ${retry.code}`);
    row.notes.push(`soulgraph retry --all: ${retry.output.trim().split('\n').pop()}`);
    if (retry.code !== 0) row.problems.push(`soulgraph retry --all exited with ${retry.code}: ${tail(retry.output)}`);
  }
  if (interrupted) {
    const again = await runSoulgraph(ingestArgs, scenario.env);
    row.exitCodes!.push(`again ${again.code}`);
    row.notes.push('the run said it stopped before its end; ran the same command again');
    if (again.code !== 0) row.problems.push(`the same ingest again exited with ${again.code}: ${tail(again.output)}`);
  }
  if (failed === 0 && !interrupted) row.problems.push(`exit 1 with no failed chunk and no interruption named:\n${tail(output)}`);
}

function tail(output: string, lines = 12): string {
  return output.trim().split('\n').slice(-lines).join('\n');
}
