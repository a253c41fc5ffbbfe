/**
 * Runs real ingestion in a test: BullMQ queues on the test Redis, workers started the
 * way the workers process starts them, rows landing in the test file's database.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { IngestFormat } from '../../shared/queues.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import { runIngest, type IngestSummary } from '../../pipeline/ingest/ingest-run.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { enqueueRun, watchRun, type RunView } from '../../pipeline/materialize/run/run-watch.ts';
import type { Config } from '../../shared/config.ts';
import type { TestEnvironment } from './test-environment.ts';

export const silentLogger = pino({ level: 'silent' });

export async function ingestFiles(
  env: TestEnvironment,
  kind: KindName,
  files: string[],
  options: { format?: IngestFormat; chunkRows?: number; chainId?: number } = {},
): Promise<IngestSummary> {
  const workers = await startWorkers(env.config, silentLogger, { kinds: [kind], maintenance: false });
  try {
    return await runIngest(env.config, {
      kind,
      files,
      format: options.format ?? 'canonical',
      chunkRows: options.chunkRows ?? 1_000,
      pollMs: 50,
      sourceName: (file) => path.basename(file),
      ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
    });
  } finally {
    await workers.close();
  }
}

/** Writes records as a JSON Lines file in a fresh temp folder; returns its path. */
export async function writeJsonLines(name: string, records: unknown[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-fixture-'));
  const file = path.join(dir, name);
  await writeFile(file, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return file;
}

export async function writeText(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-fixture-'));
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

const count = z.object({ n: z.coerce.number() });

/** Logical rows: what a reader sees once ReplacingMergeTree has collapsed re-ingested duplicates. */
export async function logicalRows(env: TestEnvironment, table: string): Promise<number> {
  const [row] = await env.ch.query(sql`SELECT count() AS n FROM ${identifier(table)} FINAL`, count);
  return row!.n;
}

/** Runs the nightly materialization now, with in-process workers, and waits for its end. */
export async function materializeNow(env: TestEnvironment, config: Config = env.config): Promise<RunView> {
  const workers = await startWorkers(config, silentLogger, { kinds: [], maintenance: false, materialize: true });
  try {
    return await watchRun(config, await enqueueRun(config, 'test'), () => {}, 100);
  } finally {
    await workers.close();
  }
}

/** Runs a materialization now and answers its snapshot id; a run that does not end done fails the test with its error. */
export async function readySnapshot(env: TestEnvironment, config: Config = env.config): Promise<number> {
  const view = await materializeNow(env, config);
  if (view.state !== 'done') throw new Error(`materialization ${view.state}: ${view.error}`);
  return view.result!.snapshotId;
}

/** Ingests records of several kinds, in the order given, through the real queues. */
export async function ingestRecords(env: TestEnvironment, records: Partial<Record<KindName, unknown[]>>): Promise<void> {
  for (const [kind, rows] of Object.entries(records) as [KindName, unknown[]][]) {
    const summary = await ingestFiles(env, kind, [await writeJsonLines(`${kind}.jsonl`, rows)]);
    if (summary.rejected > 0 || summary.failedChunks.length > 0) {
      throw new Error(`${kind}: ${JSON.stringify(summary.rejectSamples)} ${JSON.stringify(summary.failedChunks)}`);
    }
  }
}
