/**
 * npm run bench:api: requests/s and latency of the API's read endpoints, served from a
 * private local stack holding a generated world, side by side with a bare Express app
 * answering a fixed page of the same size (the baseline, served with `app.listen` as Express
 * usually is), as ratios. Targets:
 *
 *   recommend req/s / bare req/s >= 0.50     recommend p99 at half its own peak < 20 ms
 *
 * The same bare app also runs on the API's own HTTP server (api/http-server.ts, which spares
 * Express a per-request prototype change), at peak in every round, and its ratio is printed
 * beside the target's: how much of recommend's margin that server gives it.
 *
 * Each endpoint: a 3 s warm-up, then peak throughput for BENCH_DURATION seconds with
 * BENCH_CONNECTIONS connections (autocannon, no pipelining); then bare, recommend and tag
 * again at half of their own measured peak, evenly spaced (bench/paced-load.ts, open loop,
 * at most BENCH_CONNECTIONS in flight, after the same warm-up), for their latency under a
 * load they can carry. Bare and recommend run in BENCH_ROUNDS rounds, back to back within
 * each: first their peaks, then both at half of their median peak; the verdicts take the
 * median round: this machine's speed drifts by tens of percent within a minute. Each
 * half-peak run also reports its CPU per request (requests one at a time cost more than at
 * peak, where many in flight share wake-ups) and what might explain its tail: the server's
 * GC and event-loop delay, the load generator's own stalls, Redis's latency monitor and its
 * slowest commands, and the server's 100 ms windows around the slowest stretches, with the
 * whole machine's busy and stolen (hypervisor) shares. BENCH_CPU_PROFILE=<file> writes the
 * CPU profile of recommend's first peak run, and <file>.bare that of the baseline's, to
 * compare where each spends its time; <file>.half and <file>.bare.half are those of their
 * first half-peak runs.
 *
 *   BENCH_PROFILES=100000  BENCH_DURATION=10  BENCH_CONNECTIONS=32  BENCH_TOKENS=1000  BENCH_ROUNDS=3
 *   BENCH_ENDPOINTS=bare,recommend,sbt,healthz,tag (which to load; bare and recommend always)
 *   BENCH_COMPARE=<another checkout of this repository, with its node_modules>: its API too,
 *   on the same stack and world, as a third target in every round, to measure a change
 *   against the code before it under the same drift of the machine
 *   BENCH_COMPARE_SAME_RATE=1: the compared API's half-peak runs at this checkout's
 *   half-peak rate instead of half its own peak (latency under the same load)
 *   BENCH_SERVER_NODE_FLAGS="" (Node flags of both server processes; none by default:
 *   --single-threaded-gc and larger young generations were tried and did not help the tail,
 *   docs/benchmarks.md "Servers in child processes")
 *
 * Each server runs in a child process of its own (bench/api-server.ts, bench/bare-server.ts,
 * started by bench/server-process.ts), with the same Node flags: a small, clean heap each,
 * not the heap of this process, which generated and ingested the world, and no share in
 * this process's GC pauses. This process does the world, the snapshot and the serving copy,
 * and runs the load generators in worker threads. CPU per request is that of the server's
 * process (read from /proc), of this process (the load generator) and of Redis.
 *
 * The load generator, the servers, ClickHouse and Redis share the machine's cores: the
 * numbers compare endpoints with each other, they are not a capacity plan.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { z } from 'zod';
import { loadSigningKeys } from '../api/tokens/signing-keys.ts';
import { generateSigningKeyJwk } from '../shared/signing-key-jwk.ts';
import { issueUnifiedToken } from '../api/tokens/unified-token.ts';
import { mintApiKey, type ApiKeyRow } from '../shared/api-keys.ts';
import { createClickHouse, type ClickHouse } from '../shared/clickhouse/client.ts';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../shared/config.ts';
import type { KindName } from '../shared/records/kinds.ts';
import { generateWorld } from '../pipeline/generate/world-generator.ts';
import { runIngest } from '../pipeline/ingest/ingest-run.ts';
import { publishLists } from '../pipeline/serving/list-publisher.ts';
import { syncMirrors } from '../pipeline/serving/mirror-sync.ts';
import { createServingWriter } from '../pipeline/serving/serving-writer.ts';
import { API_NODE_FLAGS } from '../pipeline/cli/start.command.ts';
import { startWorkers } from '../pipeline/workers.ts';
import { startBenchStack } from './bench-stack.ts';
import { formatCpu, startCpuMeter } from './cpu-meter.ts';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import type { ApiServerOptions } from './api-server.ts';
import type { BareServerOptions } from './bare-server.ts';
import { formatRedisStalls, settlePersistence, watchRedisStalls } from './redis-stalls.ts';
import type { ServerWindow } from './server-process-messages.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { benchNetworkKey, measureOneAtATime, prepareTagRequests, prewarmTags, TAG_DOMAINS, tagVerdict } from './tag-bench.ts';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 100_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Callers whose tokens the recommend requests rotate over. */
const TOKENS = Number(process.env.BENCH_TOKENS ?? 1_000);
const RECOMMENDATIONS_PER_PROFILE = 50;
const PAGE = 20;
const SNAPSHOT_ID = 1;
const KINDS: KindName[] = ['profiles', 'follows', 'sbt-mints'];
/** Which endpoints to load besides bare and recommend, for quicker rounds while profiling. */
const ENDPOINTS = new Set((process.env.BENCH_ENDPOINTS ?? 'bare,recommend,sbt,healthz,tag').split(',').map((e) => e.trim()));
/** Node flags of both server processes, the same for the baseline and the API (see the header). */
const SERVER_NODE_FLAGS = [...API_NODE_FLAGS, ...(process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean)];
/** Rounds of bare and recommend, back to back; the verdicts take the median (see the load). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COMPARE = process.env.BENCH_COMPARE ? path.resolve(process.env.BENCH_COMPARE) : undefined;
const COMPARE_SAME_RATE = process.env.BENCH_COMPARE_SAME_RATE === '1';
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 20;

const silentLogger = pino({ level: 'silent' });
const log = (line: string) => console.log(line);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

const { work, stack, shutdown } = await startBenchStack('bench-api');
try {
  const signingJwk = await generateSigningKeyJwk('bench');
  // The API's child process parses the same settings (bench/api-server.ts).
  const configEnv: Record<string, string> = {
    CLICKHOUSE_URL: stack.clickhouseUrl,
    REDIS_URL: stack.redisUrl,
    CLICKHOUSE_DATABASE: 'bench_api',
    QUEUE_PREFIX: 'bench_api',
    LOG_LEVEL: 'warn',
    API_SIGNING_KEYS: JSON.stringify([signingJwk]),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    TAG_NETWORK_PUBLIC_KEY: benchNetworkKey(),
  };
  const config = parseConfig(configEnv);
  await migrate(config);
  const ch = createClickHouse(config);
  shutdown.add('clickhouse client', () => ch.close());

  // --- the world, through the real pipeline ---------------------------------------------
  log(`[${elapsed()}] generating ${KINDS.join(', ')} for ${PROFILES} profiles ...`);
  const worldDir = path.join(work, 'world');
  const manifest = await generateWorld({ profiles: PROFILES, seed: 7, outDir: worldDir, kinds: KINDS });
  const workers = await startWorkers(config, silentLogger, { kinds: KINDS, maintenance: false });
  let workersClosed: Promise<void> | undefined;
  const closeWorkers = () => (workersClosed ??= workers.close());
  shutdown.add('pipeline workers', closeWorkers);
  for (const kind of KINDS) {
    const file = manifest.files[kind]!;
    const summary = await runIngest(config, { kind, files: [path.join(worldDir, file.file)], format: 'canonical', chunkRows: 10_000 });
    if (summary.failedChunks.length > 0 || summary.accepted === 0) {
      throw new Error(`ingesting ${kind} was not clean: ${JSON.stringify(summary).slice(0, 500)}`);
    }
    log(`[${elapsed()}] ingested ${kind}: ${summary.accepted} of ${file.rows} rows (${summary.rejected} rejected)`);
  }
  const apiKey = mintApiKey();
  const tagRequests = await prepareTagRequests(config, ch, work, SNAPSHOT_ID, apiKey.key);
  // Idle workers poll Redis; they have no part in serving requests.
  await closeWorkers();

  const profileCount = await buildSnapshot(ch);
  log(`[${elapsed()}] snapshot ${SNAPSHOT_ID} ready: ${RECOMMENDATIONS_PER_PROFILE} recommendations for each of ${profileCount} profiles`);
  const published = await publishServingCopy(config, ch);
  log(`[${elapsed()}] serving copy in Redis: ${published} lists, as the nightly run's bucket jobs publish them`);
  const parts = await settleMerges(ch);
  log(`[${elapsed()}] background merges done; active parts: ${parts}`);

  // --- callers: an API key that is never rate-limited, and unified tokens ----------------
  const now = Math.floor(Date.now() / 1000);
  await ch.insert('api_keys', [
    {
      key_id: apiKey.keyId,
      key_hash: apiKey.keyHash,
      name: 'bench',
      domains: ['bench.localhost', ...TAG_DOMAINS],
      rate_limit_per_minute: 100_000_000,
      created_at: now,
      revoked_at: null,
      updated_at: now,
    } satisfies ApiKeyRow,
  ]);
  const keys = await loadSigningKeys(config);
  const callers = await ch.query(
    sql`SELECT profile_id, addresses[1] AS address FROM profiles FINAL
        WHERE notEmpty(addresses) ORDER BY cityHash64(profile_id) LIMIT ${TOKENS}`,
    z.object({ profile_id: z.string(), address: z.string() }),
  );
  const tokens = await Promise.all(callers.map((c) => issueUnifiedToken(keys, config, { profileId: c.profile_id, address: c.address })));
  const holders = (
    await ch.query(
      sql`SELECT owner FROM sbt_mints_by_owner GROUP BY owner ORDER BY cityHash64(owner) LIMIT ${TOKENS}`,
      z.object({ owner: z.string() }),
    )
  ).map((r) => r.owner);
  if (tokens.length === 0 || holders.length === 0) throw new Error('no callers or no SBT holders to benchmark with');

  // --- the servers -----------------------------------------------------------------------
  const api = await startServerProcess(new URL('./api-server.ts', import.meta.url), SERVER_NODE_FLAGS, { env: configEnv } satisfies ApiServerOptions);
  shutdown.add('api process', () => api.stop());
  const apiUrl = `http://127.0.0.1:${api.port}`;
  const auth = { ApiKey: apiKey.key };
  const bareTarget = newTarget({
    key: 'bare',
    name: 'bare express',
    url: '', // set below, once the page it serves is known
    server: api, // likewise
    requests: [{ method: 'GET', path: '/' }],
    profileSuffix: '.bare',
  });
  // The same baseline on the API's own HTTP server: not a target, a measure of how much of
  // recommend's margin over bare comes from that server (api/http-server.ts).
  const bareOnApiServerTarget = newTarget({
    key: 'bare-api-server',
    name: "bare express, API's server",
    url: '', // set below, with the baseline's
    server: api, // likewise
    requests: [{ method: 'GET', path: '/' }],
  });
  const recommendTarget = newTarget({
    key: 'recommend',
    name: `GET /api/v1/recommend?limit=${PAGE}`,
    url: apiUrl,
    server: api,
    requests: tokens.map((token) => ({
      method: 'GET',
      path: `/api/v1/recommend?limit=${PAGE}`,
      headers: { ...auth, Authorization: `Bearer ${token}` },
    })),
    profileSuffix: '',
  });
  const tagTarget = newTarget({ key: 'tag', name: 'GET /api/v1/tag (warm cache)', url: apiUrl, server: api, requests: tagRequests.warm });
  const everyTarget: Target[] = [
    bareTarget,
    bareOnApiServerTarget,
    recommendTarget,
    newTarget({
      key: 'sbt',
      name: 'GET /api/v1/sbt/list?address=',
      url: apiUrl,
      server: api,
      requests: holders.map((holder) => ({ method: 'GET', path: `/api/v1/sbt/list?address=${holder}`, headers: auth })),
    }),
    newTarget({ key: 'healthz', name: 'GET /healthz', url: apiUrl, server: api, requests: [{ method: 'GET', path: '/healthz' }] }),
    tagTarget,
  ];
  const inEveryRound = [bareTarget, bareOnApiServerTarget, recommendTarget];
  const targets = everyTarget.filter((t) => inEveryRound.includes(t) || ENDPOINTS.has(t.key));
  const compareTarget = COMPARE ? await comparedApi(COMPARE, configEnv, recommendTarget) : undefined;
  if (compareTarget) {
    shutdown.add('compared api process', () => compareTarget.server.stop());
    targets.splice(3, 0, compareTarget);
  }
  /** The targets of every round; all but the second baseline also run at half their peak. */
  const paired = [...inEveryRound, ...(compareTarget ? [compareTarget] : [])];
  const pairedAtHalf = paired.filter((t) => t !== bareOnApiServerTarget);
  const loadTags = targets.includes(tagTarget);

  // A real recommend page, served verbatim by the baseline: the same bytes to encode and send.
  const page = await call(recommendTarget, 0);
  if (page.status !== 200 || (page.body as { data?: { list?: unknown[] } }).data?.list?.length !== PAGE) {
    throw new Error(`recommend does not answer a full page: ${page.status} ${page.text.slice(0, 500)}`);
  }
  const bare = await startServerProcess(new URL('./bare-server.ts', import.meta.url), SERVER_NODE_FLAGS, { page: page.body, hosting: 'listen' } satisfies BareServerOptions);
  shutdown.add('bare express process', () => bare.stop());
  bareTarget.url = `http://127.0.0.1:${bare.port}`;
  bareTarget.server = bare;
  const bareOnApiServer = await startServerProcess(new URL('./bare-server.ts', import.meta.url), SERVER_NODE_FLAGS, {
    page: page.body,
    hosting: 'api-server',
  } satisfies BareServerOptions);
  shutdown.add("bare express on the API's server process", () => bareOnApiServer.stop());
  bareOnApiServerTarget.url = `http://127.0.0.1:${bareOnApiServer.port}`;
  bareOnApiServerTarget.server = bareOnApiServer;
  for (const target of targets) {
    const answer = await call(target, 0);
    if (answer.status !== 200) throw new Error(`${target.name}: ${answer.status} ${answer.text.slice(0, 500)}`);
    target.bytes = answer.text.length;
  }

  // --- the load --------------------------------------------------------------------------
  // Reads Redis's own CPU counters between runs (INFO cpu), never during one.
  const cpuRedis = new Redis(stack.redisUrl, { lazyConnect: false });
  shutdown.add('cpu meter redis client', async () => void (await cpuRedis.quit()));
  if (loadTags) await prewarmTags(apiUrl, tagRequests.warm);
  log(`[${elapsed()}] Redis's AOF rewrite after loading the serving copy: waited ${((await settlePersistence(cpuRedis)) / 1000).toFixed(1)} s for it to end`);
  log('');
  log(`load: autocannon in a worker thread, ${CONNECTIONS} connections, pipelining 1, ${WARMUP} s warm-up + ${DURATION} s per run`);
  log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), shared by the load generator, the API and the baseline`);
  log(`         (each in a child process of its own, one at a time under load), ClickHouse and Redis: numbers are relative`);
  log(`server processes: ${['node', '--import', 'tsx', ...SERVER_NODE_FLAGS].join(' ')} <entry> (the same flags for both)`);
  const heaps = await Promise.all([api, bare].map(async (s) => Math.round((await s.memoryUsage()).heapUsed / 1e6)));
  log(`heap used before the load: API process ${heaps[0]} MB, baseline process ${heaps[1]} MB, bench process ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB`);
  log('');
  let broken = 0;
  /** A peak run: as fast as it goes, after a warm-up; the target's first is CPU-profiled (BENCH_CPU_PROFILE). */
  const peakRun = async (target: Target) => {
    await load(target, WARMUP);
    const profiling = target.peaks.length === 0 ? await startCpuProfile(target, 'peak') : undefined;
    const meter = await startCpuMeter(cpuRedis, target.server);
    const peak = await load(target, DURATION);
    const cpu = await meter.stop(peak.requests.total);
    await profiling?.stop();
    broken += await reportFailures(target, peak);
    log(`[${elapsed()}] ${target.name}: ${Math.round(peak.requests.average)} req/s, p50 ${peak.latency.p50} ms, p99 ${peak.latency.p99} ms`);
    log(`         ${formatCpu(cpu)}`);
    target.peaks.push(peak);
  };
  /** A run at half of `peak`'s rate, evenly spaced, after a warm-up at that rate. */
  const halfPeakRun = async (target: Target, peak: autocannon.Result) => {
    const rate = Math.max(1, Math.floor(peak.requests.average / 2));
    // Warmed up like the peak run: after a minute without traffic, the callers' verified
    // tokens have left the API's memo, and the first second would measure 1,000 ES256
    // checks (a restart), not the steady state.
    await paced(target, WARMUP, rate);
    const pauses = await target.server.watchPauses();
    const redisStalls = await watchRedisStalls(cpuRedis);
    const profiling = target.halves.length === 0 ? await startCpuProfile(target, 'half') : undefined;
    const meter = await startCpuMeter(cpuRedis, target.server);
    const half = await paced(target, DURATION, rate);
    const cpu = await meter.stop(half.sent);
    await profiling?.stop();
    const held = await pauses();
    const redisHeld = await redisStalls();
    broken += await reportFailures(target, { non2xx: half.non2xx, errors: half.errors, timeouts: 0 });
    log(`[${elapsed()}] ${target.name} at ${rate} req/s: p50 ${half.latency.p50} ms, p99 ${half.latency.p99} ms`);
    log(`         ${formatCpu(cpu)}`);
    log(
      `         server process: ${held.gcCount} GC pauses, ${held.gcTotalMs} ms in all, longest ${held.gcMaxMs} ms${held.gcMaxKind ? ` (${held.gcMaxKind})` : ''}` +
        `${held.gcMajorCount === undefined ? '' : `, mark-compact ${held.gcMajorCount} for ${held.gcMajorMs} ms`}; ` +
        `event-loop delay p99 ${held.loopDelayP99Ms} ms, max ${held.loopDelayMaxMs} ms`,
    );
    log(
      `         load generator: ${half.generator.gcCount} GC pauses, ${half.generator.gcTotalMs} ms in all, longest ${half.generator.gcMaxMs} ms; ` +
        `its 1 ms tick ran at worst ${half.generator.tickLateMaxMs} ms late`,
    );
    log(`         ${formatRedisStalls(redisHeld)}`);
    const stretches = half.slowestStretches.map((s) => `${s.atSeconds} s (${s.slow} over ${TARGET_P99_MS} ms, max ${s.maxMs} ms)`);
    log(`         slowest 100 ms stretches of the run: ${stretches.join(', ')}`);
    for (const line of serverDuringSlowStretches(half, held.windows ?? [])) log(`           ${line}`);
    target.halves.push(half);
  };

  // The targets' ratio is taken round by round, each round running the baseline and
  // recommend back to back: this machine's speed drifts by tens of percent within a minute
  // (other tenants), and runs minutes apart would compare two different machines.
  for (let round = 1; round <= ROUNDS; round++) {
    log(`peak round ${round} of ${ROUNDS}`);
    for (const target of paired) await peakRun(target);
  }
  // Then each at half of its median peak, in rounds too: half of a single peak run caught in
  // a fast minute is a rate the machine cannot hold in a slow one (and the other way round).
  for (let round = 1; round <= ROUNDS; round++) {
    log(`half-peak round ${round} of ${ROUNDS}`);
    for (const target of pairedAtHalf) {
      // BENCH_COMPARE_SAME_RATE: the compared API at this checkout's half-peak rate, to compare latency under the same load.
      const pacer = COMPARE_SAME_RATE && target === compareTarget ? recommendTarget : target;
      await halfPeakRun(target, pacer.peaks[medianIndex(pacer.peaks.map((p) => p.requests.average))]!);
    }
  }
  for (const target of targets.filter((t) => !paired.includes(t))) await peakRun(target);
  const coldTags = loadTags ? await measureOneAtATime(apiUrl, tagRequests.cold, 40) : undefined;
  const warmTags = loadTags ? await measureOneAtATime(apiUrl, tagRequests.warm, 1_000) : undefined;
  if (loadTags) await halfPeakRun(tagTarget, tagTarget.peaks[0]!);

  // --- the report ------------------------------------------------------------------------
  log('');
  log(`soulgraph API benchmark: ${profileCount} profiles, ${RECOMMENDATIONS_PER_PROFILE} recommendations each, ${tokens.length} callers, ${holders.length} SBT holders`);
  log(`load generator and servers share ${os.cpus().length} cores; ${CONNECTIONS} connections, pipelining 1, ${DURATION} s per run after a ${WARMUP} s warm-up`);
  log('');
  const ratios = bareTarget.peaks.map((bare, i) => recommendTarget.peaks[i]!.requests.average / bare.requests.average);
  const medianRound = medianIndex(ratios);
  const header = ['endpoint', 'bytes', 'req/s', 'p50 ms', 'p99 ms', 'half-peak req/s', 'p50 ms @half', 'p99 ms @half', 'non-2xx'];
  const rows = targets.map((t) => {
    // The round with the median ratio stands for bare and recommend; the others ran once.
    const peak = t.peaks[t.peaks.length > 1 ? medianRound : 0]!;
    const half = t.halves.length > 0 ? t.halves[medianIndex(t.halves.map((h) => h.latency.p99))] : undefined;
    const failed = [...t.peaks, ...t.halves].reduce((n, r) => n + r.non2xx + r.errors, 0);
    return [
      t.name,
      String(t.bytes ?? ''),
      String(Math.round(peak.requests.average)),
      String(peak.latency.p50),
      String(peak.latency.p99),
      half ? String(half.achievedRate) : '-',
      half ? String(half.latency.p50) : '-',
      half ? String(half.latency.p99) : '-',
      String(failed),
    ];
  });
  for (const line of table([header, ...rows])) log(line);
  log('');
  log(`bare and recommend, round by round (the table above shows round ${medianRound + 1}'s peaks, the median ratio, and each one's median half-peak run):`);
  const ratiosOnApiServer = bareOnApiServerTarget.peaks.map((bare, i) => recommendTarget.peaks[i]!.requests.average / bare.requests.average);
  const roundRows = ratios.map((ratio, i) => [
    String(i + 1),
    String(Math.round(bareTarget.peaks[i]!.requests.average)),
    String(Math.round(recommendTarget.peaks[i]!.requests.average)),
    ratio.toFixed(3),
    String(bareTarget.halves[i]!.latency.p99),
    String(recommendTarget.halves[i]!.latency.p99),
    String(Math.round(bareOnApiServerTarget.peaks[i]!.requests.average)),
    ratiosOnApiServer[i]!.toFixed(3),
  ]);
  const roundHeader = ['round', 'bare req/s', 'recommend req/s', 'ratio', 'bare p99 ms @half', 'recommend p99 ms @half', "bare on API's server req/s", 'ratio to it'];
  for (const line of table([roundHeader, ...roundRows])) log(`  ${line}`);
  if (compareTarget) {
    const compared = compareTarget.peaks.map((peak, i) => [
      String(i + 1),
      (recommendTarget.peaks[i]!.requests.average / peak.requests.average).toFixed(3),
      (peak.requests.average / bareTarget.peaks[i]!.requests.average).toFixed(3),
      String(compareTarget.halves[i]!.latency.p99),
    ]);
    log('');
    log(`this checkout's recommend against ${COMPARE}'s, round by round:`);
    for (const line of table([['round', 'req/s, this / compared', 'compared / bare', 'compared p99 ms @half'], ...compared])) log(`  ${line}`);
  }
  log('');
  const ratio = ratios[medianRound]!;
  const p99s = recommendTarget.halves.map((h) => h.latency.p99);
  const p99 = p99s[medianIndex(p99s)]!;
  const over = ROUNDS > 1 ? `median of ${ROUNDS} rounds` : 'one round';
  log(`recommend req/s / bare req/s          ${ratio.toFixed(3)}   target >= ${TARGET_RATIO.toFixed(2)}  ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}  (${over})`);
  log(`recommend p99 at half its peak        ${p99} ms   target < ${TARGET_P99_MS} ms  ${p99 < TARGET_P99_MS ? 'MET' : 'NOT MET'}  (${over})`);
  log(
    `(against bare Express on the API's own HTTP server, api/http-server.ts: ${ratiosOnApiServer[medianRound]!.toFixed(3)} in the same round; ` +
      'no target, see docs/benchmarks.md)',
  );
  if (warmTags && coldTags) for (const line of tagVerdict(warmTags, coldTags)) log(line);
  log('(at half peak: requests evenly spaced at that rate, each latency measured from when the request was due)');
  if (broken > 0) {
    log('');
    log(`INVALID: ${broken} requests failed (see above); the numbers above do not measure a working API`);
    process.exitCode = 1;
  }
} finally {
  await shutdown.run();
}

/**
 * BENCH_CPU_PROFILE=<file>: the CPU profile of the server process's main thread during a
 * run (taken by the server process itself, bench/server-process-child.ts), for Chrome
 * DevTools or speedscope, as <file><profileSuffix>, plus `.half` for a half-peak run.
 * Targets without a profileSuffix are not profiled.
 */
async function startCpuProfile(target: Target, run: 'peak' | 'half'): Promise<{ stop(): Promise<void> } | undefined> {
  const base = process.env.BENCH_CPU_PROFILE;
  if (!base || target.profileSuffix === undefined) return undefined;
  const file = path.resolve(`${base}${target.profileSuffix}${run === 'half' ? '.half' : ''}`);
  await target.server.startCpuProfile();
  return {
    async stop() {
      await target.server.stopCpuProfile(file);
      log(`CPU profile of a ${run === 'half' ? 'half-peak' : 'peak'} run of ${target.name}: ${file}`);
    },
  };
}

interface Target {
  /** Its name in BENCH_ENDPOINTS. */
  key: string;
  name: string;
  url: string;
  /** The process serving it. */
  server: ServerProcess;
  requests: autocannon.Request[];
  /** Names its CPU profiles under BENCH_CPU_PROFILE; none without. */
  profileSuffix?: string;
  bytes?: number;
  /** Its peak runs, one per round for bare and recommend. */
  peaks: autocannon.Result[];
  halves: PacedLoadResult[];
}

/** A target with no runs yet. */
function newTarget(fields: Omit<Target, 'peaks' | 'halves'>): Target {
  return { ...fields, peaks: [], halves: [] };
}

/** What the nightly run's bucket and mirror jobs do after writing a snapshot (pipeline/materialize/materialize-steps.ts). */
async function publishServingCopy(config: Config, ch: ClickHouse): Promise<number> {
  const writer = createServingWriter(config);
  try {
    await syncMirrors(ch, writer);
    return await publishLists(ch, writer, SNAPSHOT_ID, sql`1`, config.SERVING_DEPTH);
  } finally {
    await writer.close();
  }
}

/**
 * A recommendation snapshot of the shape the nightly materialization writes, made directly
 * (bench:materialize measures the nightly run itself): one INSERT ... SELECT in ClickHouse (18.16: no
 * window functions, no query parameters) gives every profile RECOMMENDATIONS_PER_PROFILE
 * distinct other profiles, picked deterministically by cityHash64 from a temporary table
 * numbering the profiles densely, with the four reason kinds mixed; then the snapshot is
 * marked ready. Returns the number of profiles.
 */
async function buildSnapshot(ch: ClickHouse): Promise<number> {
  await ch.command(sql`DROP TABLE IF EXISTS bench_profile_numbers`);
  await ch.command(sql`CREATE TABLE bench_profile_numbers (n UInt32, profile_id String) ENGINE = Memory`);
  await ch.command(sql`
    INSERT INTO bench_profile_numbers
    SELECT toUInt32(position - 1) AS n, profile_id
    FROM (SELECT groupArray(profile_id) AS ids FROM (SELECT profile_id FROM profiles FINAL ORDER BY profile_id))
    ARRAY JOIN ids AS profile_id, arrayEnumerate(ids) AS position`);
  const [counted] = await ch.query(sql`SELECT count() AS n FROM bench_profile_numbers`, z.object({ n: z.coerce.number() }));
  const profiles = counted?.n ?? 0;
  const per = RECOMMENDATIONS_PER_PROFILE;
  if (profiles <= per) throw new Error(`need more than ${per} profiles, found ${profiles}`);
  // Candidate k of profile n is n + 1 + k * step + h(n) (mod profiles), h(n) < step: 50
  // distinct offsets within 1 .. profiles - 1, so 50 distinct candidates, never n itself.
  const step = Math.floor((profiles - 1) / per);
  await ch.command(sql`
    INSERT INTO recommendations
      (snapshot_id, profile_id, rank, candidate_id, score, reason_kind, reason_chain_id, reason_subject)
    SELECT
      toUInt32(${SNAPSHOT_ID}) AS snapshot_id,
      profile_id,
      rank,
      candidate_id,
      toFloat64(1000 - rank) AS score,
      CAST(['social', 'counterparty', 'nft', 'friend_of_friend'][kind + 1]
           AS Enum8('social' = 1, 'counterparty' = 2, 'nft' = 3, 'friend_of_friend' = 4)) AS reason_kind,
      toUInt32(multiIf(kind = 1, [1, 137, 8453][seed % 3 + 1], kind = 2, 1, 0)) AS reason_chain_id,
      multiIf(kind = 2, ['CryptoPunks', 'Bored Ape Yacht Club', 'Azuki', 'Pudgy Penguins', 'Doodles'][seed % 5 + 1],
              kind = 3, friend_id, '') AS reason_subject
    FROM
    (
      SELECT * FROM
      (
        SELECT * FROM
        (
          SELECT
            toUInt32(intDiv(number, ${per})) AS n,
            toUInt32(number % ${per} + 1) AS rank,
            cityHash64(number) AS seed,
            toUInt8(seed % 4) AS kind,
            toUInt32((n + 1 + (rank - 1) * ${step} + cityHash64(n) % ${step}) % ${profiles}) AS candidate_n,
            toUInt32(cityHash64(number, 'friend') % ${profiles}) AS friend_n
          FROM numbers(${profiles * per})
        ) AS generated
        ALL INNER JOIN bench_profile_numbers USING n
      ) AS with_profiles
      ALL INNER JOIN (SELECT n AS candidate_n, profile_id AS candidate_id FROM bench_profile_numbers) AS candidates USING candidate_n
    ) AS with_candidates
    ALL INNER JOIN (SELECT n AS friend_n, profile_id AS friend_id FROM bench_profile_numbers) AS friends USING friend_n`);
  await ch.command(sql`DROP TABLE bench_profile_numbers`);
  const [written] = await ch.query(
    sql`SELECT count() AS n, uniqExact(profile_id) AS profiles FROM recommendations WHERE snapshot_id = ${SNAPSHOT_ID}`,
    z.object({ n: z.coerce.number(), profiles: z.coerce.number() }),
  );
  if (written?.n !== profiles * per || written.profiles !== profiles) {
    throw new Error(`snapshot: expected ${profiles * per} rows for ${profiles} profiles, found ${JSON.stringify(written)}`);
  }
  const now = Math.floor(Date.now() / 1000);
  await ch.insert('recommendation_snapshots', [{ snapshot_id: SNAPSHOT_ID, status: 'ready', created_at: now, updated_at: now }]);
  return profiles;
}

/**
 * Ingest leaves many parts that ClickHouse merges in the background for a while; measuring
 * during those merges would charge their CPU to whichever endpoint runs first. Waits until
 * no merge has run for 3 s (at most 120 s); returns the active parts per table.
 */
async function settleMerges(ch: ClickHouse): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (let quiet = 0; quiet < 3 && Date.now() < deadline; ) {
    const [row] = await ch.query(sql`SELECT count() AS n FROM system.merges WHERE database = ${ch.database}`, z.object({ n: z.coerce.number() }));
    quiet = row?.n === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const rows = await ch.query(
    sql`SELECT table, count() AS parts FROM system.parts
        WHERE database = ${ch.database} AND active AND table IN ('profiles', 'profile_identities', 'follows', 'sbt_mints_by_owner', 'recommendations')
        GROUP BY table ORDER BY table`,
    z.object({ table: z.string(), parts: z.coerce.number() }),
  );
  return rows.map((r) => `${r.table} ${r.parts}`).join(', ');
}

/** A peak run: as fast as it goes. */
function load(target: Target, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    // Its own thread: the load generator must not share the servers' event loop.
    workers: 1,
    // A precomputed list (functions cannot cross to the worker): each connection cycles through it.
    requests: target.requests,
  });
}

/** The same target at a fixed rate, evenly spaced (bench/paced-load.ts). */
function paced(target: Target, seconds: number, rate: number): Promise<PacedLoadResult> {
  return pacedLoad({ url: target.url, requests: target.requests, rate, seconds, sockets: CONNECTIONS, slowMs: TARGET_P99_MS });
}

/** Non-2xx answers and socket errors of a run, with a sample answer; returns how many. */
async function reportFailures(target: Target, result: Pick<autocannon.Result, 'non2xx' | 'errors' | 'timeouts'> & Partial<Pick<autocannon.Result, 'statusCodeStats'>>): Promise<number> {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures === 0) return 0;
  log(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts; status codes ${JSON.stringify(result.statusCodeStats ?? {})}`);
  for (let i = 0; i < Math.min(target.requests.length, 50); i++) {
    const answer = await call(target, i);
    if (answer.status < 200 || answer.status >= 300) {
      log(`  sample: ${answer.status} ${answer.text.slice(0, 500)}`);
      break;
    }
  }
  return failures;
}

/** Request `index` of the target, once, with fetch. */
async function call(target: Target, index: number): Promise<{ status: number; text: string; body: unknown }> {
  const request = target.requests[index]!;
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const response = await fetch(`${target.url}${request.path ?? '/'}`, { method: request.method ?? 'GET', headers });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text says what went wrong
  }
  return { status: response.status, text, body };
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
}

/** The index of the median value (the lower middle one when there are evenly many). */
function medianIndex(values: number[]): number {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  return order[Math.floor((order.length - 1) / 2)]![1];
}

/**
 * What the server did around each of the run's slow stretches (from 200 ms before to 200 ms
 * after), 100 ms at a time: busy = event-loop utilization, cpu = its process's share of a
 * core, gc = GC pause ms, late = how late its 100 ms timer fired. A busy loop means the
 * server had more to do than it could; a late timer with an idle loop and little CPU means
 * it was not given a core.
 */
function serverDuringSlowStretches(half: PacedLoadResult, windows: ServerWindow[]): string[] {
  return half.slowestStretches
    .filter((stretch) => stretch.slow > 0)
    .map((stretch) => {
      const from = half.startedAtEpochMs + stretch.atSeconds * 1000;
      const around = windows.filter((w) => w.endEpochMs > from - 200 && w.endEpochMs <= from + 300);
      const shown = around.map((w) => `${w.busyPct}/${w.cpuPct}/${w.gcMs}/${w.lateMs}/${w.machineBusyPct ?? '-'}/${w.machineStealPct ?? '-'}`).join('  ');
      return `at ${stretch.atSeconds} s, server busy%/cpu%/gc ms/late ms, machine busy%/steal% per 100 ms: ${shown}`;
    });
}

/** BENCH_COMPARE: the API of another checkout, on the same stack, answering recommend's requests. */
async function comparedApi(checkout: string, env: Record<string, string>, recommend: Target): Promise<Target> {
  const entry = pathToFileURL(path.join(checkout, 'bench', 'api-server.ts'));
  const server = await startServerProcess(entry, SERVER_NODE_FLAGS, { env } satisfies ApiServerOptions);
  return newTarget({ key: 'compare', name: `recommend, ${path.basename(checkout)}`, url: `http://127.0.0.1:${server.port}`, server, requests: recommend.requests });
}
