/**
 * npm run chaos: faults and bad input against a private stack, and a table of what held.
 *
 *   kill -9 the workers (3 times), Redis, ClickHouse (twice: default attempts, and one
 *   attempt per chunk so that `soulgraph retry --all` must repair) mid `soulgraph ingest`;
 *   every kind of bad CSV and JSON Lines file; SIGSTOP Redis, then ClickHouse, for 10 s
 *   under API load; kill -9 the workers while they materialize a snapshot.
 *
 * Exits 1 if any row fails. Not part of `npm test`: it takes minutes. Settings:
 *   CHAOS_ONLY=ingest,bad-input,stalls,materialize (default: all)
 *   CHAOS_ROWS=150000 (transactions per ingest fault)  CHAOS_PROFILES=2000 (the served world)
 *   CHAOS_LONG_LINE_MB=20 (the "very long line" files)  CHAOS_RATE=40 (API requests/s under the faults)
 * How to read the table: docs/operations.md, "Fault drill: npm run chaos".
 */
import { badInputRows } from './bad-input.ts';
import { startChaosStack } from './chaos-stack.ts';
import { INGEST_FAULTS, prepareIngestInput, runIngestFault } from './ingest-faults.ts';
import { killMaterialization } from './materialize-kill.ts';
import { formatChaosTable, passes, type ScenarioRow } from './scenario-row.ts';
import { startServedWorld } from './served-world.ts';
import { stallUnderLoad } from './stalls-under-load.ts';

const FAMILIES = ['ingest', 'bad-input', 'stalls', 'materialize'] as const;
const only = new Set((process.env.CHAOS_ONLY ?? FAMILIES.join(',')).split(',').map((f) => f.trim()));
const ROWS = Number(process.env.CHAOS_ROWS ?? 150_000);
const PROFILES = Number(process.env.CHAOS_PROFILES ?? 2_000);
const RATE = Number(process.env.CHAOS_RATE ?? 40);
const LONG_LINE_BYTES = Number(process.env.CHAOS_LONG_LINE_MB ?? 20) * 1024 * 1024;

const started = Date.now();
const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const rows: ScenarioRow[] = [];
const record = (row: ScenarioRow) => {
  rows.push(row);
  say(`${passes(row) ? 'PASS' : 'FAIL'} ${row.scenario}`);
};
/** A scenario that throws is a failed row, and the run goes on. */
async function scenario(name: string, run: () => Promise<ScenarioRow>): Promise<void> {
  say(`${name} ...`);
  record(await run().catch((error: Error) => ({ scenario: name, notes: [], problems: [`did not run to its end: ${error.stack ?? error.message}`] })));
}

const stack = await startChaosStack();
say(`private stack in ${stack.work}: ClickHouse ${stack.stack.clickhouseUrl}, Redis ${stack.stack.redisUrl}`);
try {
  if (only.has('ingest')) {
    const input = await prepareIngestInput(stack.work, ROWS);
    say(`ingest input: ${input.expected} transactions`);
    for (const fault of INGEST_FAULTS) await scenario(fault.name, () => runIngestFault(stack, input, fault));
  }
  if (only.has('bad-input')) {
    say('bad input files ...');
    await badInputRows(stack, LONG_LINE_BYTES, record).catch((error: Error) => record({ scenario: 'bad input', notes: [], problems: [error.stack ?? error.message] }));
  }
  if (only.has('stalls') || only.has('materialize')) {
    say(`served world: ${PROFILES} profiles, ingested and materialized, the API in a process of its own ...`);
    const world = await startServedWorld(stack, PROFILES);
    try {
      if (only.has('stalls')) {
        await scenario('SIGSTOP Redis 10 s under load', () => stallUnderLoad(stack, world, 'redis', RATE));
        await scenario('SIGSTOP ClickHouse 10 s under load', () => stallUnderLoad(stack, world, 'clickhouse', RATE));
      }
      if (only.has('materialize')) await scenario('kill -9 workers mid-materialization', () => killMaterialization(world, RATE / 2));
    } finally {
      await world.stop();
    }
  }
} catch (error) {
  record({ scenario: 'chaos run', notes: [], problems: [`stopped: ${(error as Error).stack ?? String(error)}`] });
} finally {
  const restarts = stack.stackLog.filter((line) => /starting it again|running again/.test(line));
  await stack.shutdown.run();
  console.log('');
  for (const line of formatChaosTable(rows)) console.log(line);
  if (restarts.length > 0) console.log(`\nlocal stack supervisor:\n${restarts.map((line) => `  ${line}`).join('\n')}`);
  const failed = rows.filter((row) => !passes(row)).length;
  console.log(`\n${rows.length - failed} of ${rows.length} scenarios passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exitCode = failed > 0 ? 1 : 0;
}
