/**
 * npm run bench:ingest: rows/s of ingesting generated transactions through the pipeline
 * (producer reading the canonical file -> BullMQ -> worker processes validating and
 * inserting -> ClickHouse), side by side with clickhouse-client inserting the same rows
 * (already in the table's shape) directly, as a ratio. Target: >= 0.5.
 *
 *   BENCH_PROFILES=100000 (about 1 M transactions)  BENCH_CHUNK_ROWS=<INGEST_CHUNK_ROWS default>  BENCH_RUNS=3
 *   BENCH_WORKER_PROCESSES=<cores>  BENCH_WORKER_NODE_ARGS='--max-semi-space-size=64'
 */
import { execFile, spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { z } from 'zod';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../shared/config.ts';
import { ingestJobOptions, ingestQueueName } from '../shared/queues.ts';
import { redisConnection } from '../shared/redis.ts';
import { transactionRecord } from '../shared/records/chain-activity.ts';
import { generateWorld } from '../pipeline/generate/world-generator.ts';
import { runIngest } from '../pipeline/ingest/ingest-run.ts';
import { startBenchStack } from './bench-stack.ts';
import { median } from './median.ts';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 100_000);
/** What `soulgraph ingest` uses unless told otherwise. */
const CHUNK_ROWS = Number(process.env.BENCH_CHUNK_ROWS ?? parseConfig({}).INGEST_CHUNK_ROWS);
/** Worker processes; one per core is how the pipeline is meant to be deployed. */
const WORKER_PROCESSES = Number(process.env.BENCH_WORKER_PROCESSES ?? os.cpus().length);
/** Rounds of (direct, pipeline), each into fresh databases; the medians are compared. */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** A bigger young generation: a worker allocates ~1 KB per row and lives for one chunk. */
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '--max-semi-space-size=64').split(' ').filter(Boolean);
const BIN = fileURLToPath(new URL('../bin/soulgraph.js', import.meta.url));

const { work, stack, shutdown } = await startBenchStack('bench');
try {
  console.log(`generating transactions for ${PROFILES} profiles ...`);
  const manifest = await generateWorld({ profiles: PROFILES, seed: 7, outDir: path.join(work, 'world'), kinds: ['transactions'] });
  const canonical = path.join(work, 'world', manifest.files.transactions!.file);
  const rows = manifest.files.transactions!.rows;
  const tableRows = path.join(work, 'transactions.table.jsonl');
  await writeTableRows(canonical, tableRows);

  const directTimes: number[] = [];
  const pipelineTimes: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const serverConfig = path.join(work, 'clickhouse', 'config.xml');
    directTimes.push(await timeDirectInsert(configFor(`bench_direct_${run}`), tableRows, serverConfig));
    pipelineTimes.push(await timePipeline(configFor(`bench_pipeline_${run}`), canonical));
    console.log(`run ${run}: direct ${directTimes.at(-1)!.toFixed(2)} s, pipeline ${pipelineTimes.at(-1)!.toFixed(2)} s`);
  }
  const directRate = rows / median(directTimes);
  const pipelineRate = rows / median(pipelineTimes);
  console.log('');
  console.log(`rows                     ${rows} transactions, median of ${RUNS} runs`);
  console.log(`clickhouse-client direct ${median(directTimes).toFixed(2)} s  ${Math.round(directRate)} rows/s`);
  console.log(`soulgraph pipeline       ${median(pipelineTimes).toFixed(2)} s  ${Math.round(pipelineRate)} rows/s  (chunks of ${CHUNK_ROWS}, ${WORKER_PROCESSES} worker processes)`);
  const ratio = pipelineRate / directRate;
  console.log(`ratio pipeline/direct    ${ratio.toFixed(2)}  target >= 0.50  ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
  console.log(`reproduce: BENCH_PROFILES=${PROFILES} BENCH_RUNS=${RUNS} npm run bench:ingest`);
} finally {
  await shutdown.run();
}

function configFor(database: string): Config {
  return parseConfig({
    CLICKHOUSE_URL: stack.clickhouseUrl,
    REDIS_URL: stack.redisUrl,
    CLICKHOUSE_DATABASE: database,
    QUEUE_PREFIX: database,
    LOG_LEVEL: 'warn',
    INGEST_CHUNK_ROWS: String(CHUNK_ROWS),
  });
}

/** The baseline's input: the same rows already in the table's own shape (not timed). */
async function writeTableRows(canonical: string, out: string): Promise<void> {
  const sink = createWriteStream(out);
  const ingestedAt = Math.floor(Date.now() / 1000);
  for await (const line of createInterface({ input: createReadStream(canonical) })) {
    const row = transactionRecord.parse(JSON.parse(line));
    if (!sink.write(`${JSON.stringify({ ...row, ingested_at: ingestedAt })}\n`)) await once(sink, 'drain');
  }
  sink.end();
  await once(sink, 'finish');
}

async function timeDirectInsert(config: Config, file: string, serverConfig: string): Promise<number> {
  await migrate(config);
  const tcpPort = /<tcp_port>(\d+)<\/tcp_port>/.exec(await readFile(serverConfig, 'utf8'))?.[1];
  if (!tcpPort) throw new Error('cannot read the local server tcp_port');
  const started = performance.now();
  const client = spawn('clickhouse-client', [
    '--port', tcpPort, '--database', config.CLICKHOUSE_DATABASE, '--query', 'INSERT INTO transactions FORMAT JSONEachRow',
  ], { stdio: ['pipe', 'inherit', 'inherit'] });
  createReadStream(file).pipe(client.stdin);
  const [code] = await once(client, 'exit');
  if (code !== 0) throw new Error(`clickhouse-client exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  await expectRows(config, file);
  return seconds;
}

async function timePipeline(config: Config, file: string): Promise<number> {
  await migrate(config);
  // Port 0: each worker process serves /metrics on a port of its own (two on 9464 would clash).
  const env = { ...process.env, CLICKHOUSE_URL: config.CLICKHOUSE_URL, REDIS_URL: config.REDIS_URL, CLICKHOUSE_DATABASE: config.CLICKHOUSE_DATABASE, QUEUE_PREFIX: config.QUEUE_PREFIX, WORKERS_HTTP_PORT: '0', LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'warn' };
  const workers = Array.from({ length: WORKER_PROCESSES }, () =>
    spawn(process.execPath, [...WORKER_NODE_ARGS, BIN, 'workers', '--kinds', 'transactions'], { env, stdio: 'inherit' }),
  );
  const queue = new Queue(ingestQueueName('transactions'), {
    connection: redisConnection(config, 'producer'),
    prefix: config.QUEUE_PREFIX,
    defaultJobOptions: ingestJobOptions(config),
  });
  try {
    while ((await queue.getWorkersCount()) < WORKER_PROCESSES) await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    const summary = await runIngest(config, { kind: 'transactions', files: [file], format: 'canonical', chunkRows: CHUNK_ROWS });
    const seconds = (performance.now() - started) / 1000;
    if (summary.failedChunks.length > 0 || summary.rejected > 0) throw new Error(`pipeline run was not clean: ${JSON.stringify(summary).slice(0, 500)}`);
    await expectRows(config, file);
    return seconds;
  } finally {
    await queue.close();
    await Promise.all(workers.map((w) => (w.kill('SIGTERM'), once(w, 'exit'))));
  }
}

async function expectRows(config: Config, file: string): Promise<void> {
  const { stdout } = await promisify(execFile)('wc', ['-l', file]);
  const expected = Number(stdout.trim().split(/\s+/)[0]);
  const ch = createClickHouse(config);
  const [row] = await ch.query(sql`SELECT count() AS n FROM transactions`, z.object({ n: z.coerce.number() }));
  await ch.close();
  if (row?.n !== expected) throw new Error(`${config.CLICKHOUSE_DATABASE}: expected ${expected} rows, found ${row?.n}`);
}
