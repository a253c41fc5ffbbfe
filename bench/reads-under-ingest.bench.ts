/**
 * npm run bench:reads-under-ingest: recommend's p99 at a steady rate with nothing else
 * running, and the same while ingests (about 10 transactions per profile of
 * BENCH_INGEST_PROFILES each) run back to back through worker processes, side by side.
 * Target: with the ingests, p99 at most 2 x without.
 *
 * The host is split as docs/operations.md recommends for one that runs both: INGEST_CPUS (by
 * default the last CPU, when there are two or more) for ingestion, the others for the API, the
 * serving Redis and this bench's load. `INGEST_CPUS= ` (blank) measures without the split.
 *
 *   BENCH_PROFILES=5000 (the world read)  BENCH_INGEST_PROFILES=100000 (~1 M rows)
 *   BENCH_RATE=100 (requests/s)  BENCH_SECONDS=30  BENCH_WORKER_PROCESSES=<cores>
 *   BENCH_CHUNK_ROWS=<INGEST_CHUNK_ROWS default>  BENCH_API_ENV='{"SETTING":"value"}' (the API's settings)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { z } from 'zod';
import { loadSigningKeys } from '../api/auth/signing-keys.ts';
import { issueUnifiedToken } from '../api/auth/unified-token.ts';
import { mintApiKey, type ApiKeyRow } from '../shared/api-keys.ts';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../shared/config.ts';
import { confineToSide, cpusOf, machineCpus } from '../shared/cpu-affinity.ts';
import { formatCpuList } from '../shared/cpu-list.ts';
import { generateSigningKeyJwk } from '../shared/signing-key-jwk.ts';
import type { KindName } from '../shared/records/kinds.ts';
import { generateWorld } from '../pipeline/generate/world-generator.ts';
import { runIngest } from '../pipeline/ingest/ingest-run.ts';
import { enqueueRun, watchRun } from '../pipeline/materialize/run/run-watch.ts';
import { API_NODE_FLAGS } from '../pipeline/cli/start.command.ts';
import { startWorkers } from '../pipeline/workers.ts';
import type { ApiServerOptions } from './api-server.ts';
import { startBenchStack } from './bench-stack.ts';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import { startServerProcess } from './server-process.ts';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 5_000);
const INGEST_PROFILES = Number(process.env.BENCH_INGEST_PROFILES ?? 100_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WORKER_PROCESSES = Number(process.env.BENCH_WORKER_PROCESSES ?? os.cpus().length);
const CHUNK_ROWS = process.env.BENCH_CHUNK_ROWS;
const KINDS: KindName[] = ['profiles', 'follows', 'social-follows', 'nft-collections', 'nft-transfers'];
const BIN = fileURLToPath(new URL('../bin/soulgraph.js', import.meta.url));
const silent = pino({ level: 'silent' });

const MACHINE_CPUS = machineCpus();
const INGEST_CPUS = process.env.INGEST_CPUS ?? (MACHINE_CPUS.length >= 2 ? String(MACHINE_CPUS.at(-1)) : '');
const { work, stack, shutdown } = await startBenchStack('reads-under-ingest', { INGEST_CPUS });
try {
  // The API's child process parses the same settings (bench/api-server.ts): the same signing key.
  const env = {
    API_SIGNING_KEYS: JSON.stringify([await generateSigningKeyJwk('bench')]),
    CLICKHOUSE_URL: stack.clickhouseUrl,
    REDIS_URL: stack.redisUrl,
    SERVING_REDIS_URL: stack.servingRedisUrl,
    CLICKHOUSE_DATABASE: 'bench',
    QUEUE_PREFIX: 'bench',
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    INGEST_CPUS,
    ...(process.env.BENCH_API_ENV ? (JSON.parse(process.env.BENCH_API_ENV) as Record<string, string>) : {}),
  };
  const config = parseConfig(env);
  await migrate(config);
  const ch = createClickHouse(config);
  shutdown.add('clickhouse client', () => ch.close());

  console.log(`the world read: ${PROFILES} profiles, ingested and materialized ...`);
  const worldDir = path.join(work, 'world');
  const world = await generateWorld({ profiles: PROFILES, seed: 3, outDir: worldDir, kinds: KINDS });
  const workers = await startWorkers(config, silent, { kinds: KINDS, maintenance: false, materialize: true });
  for (const kind of KINDS) await runIngest(config, { kind, files: [path.join(worldDir, world.files[kind]!.file)], format: 'canonical', chunkRows: 10_000 });
  const run = await watchRun(config, await enqueueRun(config, 'bench'), () => {});
  if (run.state !== 'done') throw new Error(`materialization ${run.state}: ${run.error}`);
  await workers.close();

  console.log(`the ingest: transactions of ${INGEST_PROFILES} profiles ...`);
  const ingestWorld = await generateWorld({ profiles: INGEST_PROFILES, seed: 9, outDir: path.join(work, 'ingest'), kinds: ['transactions'] });
  const ingestFile = path.join(work, 'ingest', ingestWorld.files.transactions!.file);

  const apiKey = mintApiKey();
  const now = Math.floor(Date.now() / 1000);
  await ch.insert('api_keys', [
    { key_id: apiKey.keyId, key_hash: apiKey.keyHash, name: 'bench', domains: ['bench.localhost'], rate_limit_per_minute: 100_000_000, created_at: now, revoked_at: null, updated_at: now } satisfies ApiKeyRow,
  ]);
  const keys = await loadSigningKeys(config);
  const callers = await ch.query(
    sql`SELECT profile_id, addresses[1] AS address FROM profiles FINAL WHERE notEmpty(addresses) ORDER BY cityHash64(profile_id) LIMIT 500`,
    z.object({ profile_id: z.string(), address: z.string() }),
  );
  const tokens = await Promise.all(callers.map((c) => issueUnifiedToken(keys, config, { profileId: c.profile_id, address: c.address })));
  const requests = tokens.map((token) => ({ method: 'GET', path: '/api/v1/recommend?limit=20', headers: { ApiKey: apiKey.key, Authorization: `Bearer ${token}` } }));

  const api = await startServerProcess(new URL('./api-server.ts', import.meta.url), API_NODE_FLAGS, { env } satisfies ApiServerOptions);
  shutdown.add('api process', () => api.stop());
  const load = () => pacedLoad({ url: `http://127.0.0.1:${api.port}`, requests, rate: RATE, seconds: SECONDS, sockets: 32 });

  // The load is a client of the API: on the API's CPUs, as a client elsewhere would not take ingestion's.
  confineToSide('api', config.INGEST_CPUS);
  console.log(placement(config.INGEST_CPUS));
  await load(); // warm-up: JIT, caches, the serving copy's first reads
  const quiet = await load();
  if (quiet.non2xx > 0 || quiet.errors > 0) throw new Error(`recommend answered ${quiet.non2xx} non-2xx and ${quiet.errors} errors without ingest: not a measure of reads`);
  console.log(`without ingest: ${describe(quiet)}`);

  const workerProcesses = Array.from({ length: WORKER_PROCESSES }, () =>
    spawn(process.execPath, [BIN, 'workers', '--kinds', 'transactions'], { env: { ...process.env, ...env, WORKERS_HTTP_PORT: '0', ADMIN_PORT: '0' }, stdio: 'ignore' }),
  );
  shutdown.add('worker processes', async () => {
    for (const child of workerProcesses) child.kill('SIGTERM');
  });
  // The producer as a data engineer runs it, the CLI in a process of its own, run again as
  // soon as it exits for as long as the load lasts: every request is measured under ingest.
  let loading = true;
  const runs: { rows: number; seconds: number }[] = [];
  const ingesting = (async () => {
    while (loading) runs.push(await ingestOnce(ingestFile, env));
  })();
  const busy = await load().finally(() => (loading = false));
  await ingesting;
  const rows = runs.reduce((sum, run) => sum + run.rows, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  console.log(`with ingest:    ${describe(busy)}`);
  console.log(`ingest: ${runs.length} runs of ${runs[0]!.rows} rows back to back, ${Math.round(rows / seconds)} rows/s`);
  const ratio = busy.latency.p99 / quiet.latency.p99;
  console.log(`\nrecommend p99 with ingest / without: ${ratio.toFixed(2)}  target <= 2.00  ${ratio <= 2 ? 'MET' : 'NOT MET'}`);
  console.log(`reproduce: INGEST_CPUS=${INGEST_CPUS} BENCH_PROFILES=${process.env.BENCH_PROFILES ?? 5000} BENCH_INGEST_PROFILES=${process.env.BENCH_INGEST_PROFILES ?? 100000} BENCH_RATE=${RATE} BENCH_SECONDS=${SECONDS} npm run bench:reads-under-ingest`);
} finally {
  await shutdown.run();
}

/** One `soulgraph ingest` of the file: its accepted rows and wall time. */
async function ingestOnce(file: string, env: Record<string, string>): Promise<{ rows: number; seconds: number }> {
  const started = Date.now();
  const producer = spawn(process.execPath, [BIN, 'ingest', 'transactions', file, '--workers', 'no', ...(CHUNK_ROWS ? ['--chunk-rows', CHUNK_ROWS] : [])], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let report = '';
  producer.stdout.on('data', (chunk) => (report += chunk));
  const code = await new Promise<number | null>((resolve) => producer.once('exit', resolve));
  if (code !== 0) throw new Error(`soulgraph ingest exited with ${code}: ${report}`);
  return { rows: Number(/(\d+) accepted/.exec(report)?.[1] ?? 0), seconds: (Date.now() - started) / 1000 };
}

function placement(ingestCpus: number[] | undefined): string {
  if (!ingestCpus) return 'INGEST_CPUS unset: every process on every CPU';
  const api = formatCpuList(cpusOf('api', ingestCpus)!);
  return `INGEST_CPUS=${formatCpuList(ingestCpus)}: ClickHouse, the queue Redis, workers and ingests there; the API, the serving Redis and this load on ${api}`;
}

function describe(result: PacedLoadResult): string {
  const { p50, p99, max } = result.latency;
  return `${result.achievedRate.toFixed(0)} req/s, p50 ${p50} ms, p99 ${p99} ms, max ${max} ms, ${result.non2xx} non-2xx, ${result.errors} errors`;
}
