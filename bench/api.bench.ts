/**
 * npm run bench:api: requests/s of the API's read endpoints against a bare Express app
 * answering the same page (the baseline, served with `app.listen` as Express usually is),
 * in the same run, on a private local stack holding a generated world. Targets:
 *
 *   recommend req/s / bare req/s >= 0.50     recommend p99 at half its own peak < 20 ms
 *   tag p50 with a warm cache, one request at a time < 5 ms
 *
 * Bare and recommend run in BENCH_ROUNDS rounds, back to back within each (this machine's
 * speed drifts by tens of percent within a minute): first their peaks (autocannon,
 * BENCH_CONNECTIONS connections), then both at half their median peak, requests evenly spaced
 * (bench/paced-load.ts, open loop: latency counts from when a request was due). The verdicts
 * take the median round. The same bare app on the API's own HTTP server (api/server/http-server.ts)
 * is measured too, for how much of recommend's margin that server gives it (no target).
 * Each server runs in a child process of its own with the API's V8 flags
 * (bench/server-process.ts). The load generator, the servers, ClickHouse and Redis share the
 * machine's cores: compare ratios, not req/s.
 *
 *   BENCH_PROFILES=100000  BENCH_DURATION=10  BENCH_CONNECTIONS=32  BENCH_TOKENS=1000  BENCH_ROUNDS=3
 *   BENCH_ENDPOINTS=bare,recommend,sbt,healthz,tag (which to load; bare and recommend always)
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { z } from 'zod';
import { loadSigningKeys } from '../api/auth/signing-keys.ts';
import { generateSigningKeyJwk } from '../shared/signing-key-jwk.ts';
import { issueUnifiedToken } from '../api/auth/unified-token.ts';
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
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import type { ApiServerOptions } from './api-server.ts';
import type { BareServerOptions } from './bare-server.ts';
import { startServerProcess } from './server-process.ts';
import { benchNetworkKey, measureOneAtATime, prepareTagRequests, prewarmTags, TAG_DOMAINS, tagVerdict } from './tag-bench.ts';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 100_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Callers whose tokens the recommend requests rotate over. */
const TOKENS = Number(process.env.BENCH_TOKENS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ENDPOINTS = new Set((process.env.BENCH_ENDPOINTS ?? 'bare,recommend,sbt,healthz,tag').split(',').map((e) => e.trim()));
const RECOMMENDATIONS_PER_PROFILE = 50;
const PAGE = 20;
const SNAPSHOT_ID = 1;
const KINDS: KindName[] = ['profiles', 'follows', 'sbt-mints'];
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
    SERVING_REDIS_URL: stack.servingRedisUrl,
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

  // --- the world, through the real pipeline; a snapshot and its serving copy ----------------
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
  log(`[${elapsed()}] background merges done; active parts: ${await settleMerges(ch)}`);
  await settleRedisPersistence(stack.redisUrl);

  // --- callers: an API key that is never rate-limited, and unified tokens -------------------
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

  // --- the servers: the API, and the baseline answering a real recommend page ---------------
  const api = await startServerProcess(new URL('./api-server.ts', import.meta.url), API_NODE_FLAGS, { env: configEnv } satisfies ApiServerOptions);
  shutdown.add('api process', () => api.stop());
  const apiUrl = `http://127.0.0.1:${api.port}`;
  const auth = { ApiKey: apiKey.key };
  const recommend = target(`GET /api/v1/recommend?limit=${PAGE}`, apiUrl, tokens.map((token) => ({ method: 'GET', path: `/api/v1/recommend?limit=${PAGE}`, headers: { ...auth, Authorization: `Bearer ${token}` } })));
  const page = await call(recommend, 0);
  if (page.status !== 200 || (page.body as { data?: { list?: unknown[] } }).data?.list?.length !== PAGE) {
    throw new Error(`recommend does not answer a full page: ${page.status} ${page.text.slice(0, 500)}`);
  }
  const bareServer = async (hosting: BareServerOptions['hosting']) => {
    const server = await startServerProcess(new URL('./bare-server.ts', import.meta.url), API_NODE_FLAGS, { page: page.body, hosting } satisfies BareServerOptions);
    shutdown.add(`bare express (${hosting})`, () => server.stop());
    return `http://127.0.0.1:${server.port}`;
  };
  const bare = target('bare express', await bareServer('listen'), [{ method: 'GET', path: '/' }]);
  const bareOnApiServer = target("bare express, API's server", await bareServer('api-server'), [{ method: 'GET', path: '/' }]);
  const tag = target('GET /api/v1/tag (warm cache)', apiUrl, tagRequests.warm);
  const others = [
    ...(ENDPOINTS.has('sbt') ? [target('GET /api/v1/sbt/list?address=', apiUrl, holders.map((holder) => ({ method: 'GET', path: `/api/v1/sbt/list?address=${holder}`, headers: auth })))] : []),
    ...(ENDPOINTS.has('healthz') ? [target('GET /healthz', apiUrl, [{ method: 'GET', path: '/healthz' }])] : []),
    ...(ENDPOINTS.has('tag') ? [tag] : []),
  ];
  const targets = [bare, bareOnApiServer, recommend, ...others];
  for (const t of targets) {
    const answer = await call(t, 0);
    if (answer.status !== 200) throw new Error(`${t.name}: ${answer.status} ${answer.text.slice(0, 500)}`);
    t.bytes = answer.text.length;
  }

  // --- the load -----------------------------------------------------------------------------
  if (others.includes(tag)) await prewarmTags(apiUrl, tagRequests.warm);
  let failed = 0;
  const peakRun = async (t: Target) => {
    await load(t, WARMUP);
    const peak = await load(t, DURATION);
    failed += peak.non2xx + peak.errors + peak.timeouts;
    log(`[${elapsed()}] ${t.name}: ${Math.round(peak.requests.average)} req/s, p50 ${peak.latency.p50} ms, p99 ${peak.latency.p99} ms`);
    t.peaks.push(peak);
  };
  const halfPeakRun = async (t: Target) => {
    const rate = Math.max(1, Math.floor(t.peaks[medianIndex(t.peaks.map((p) => p.requests.average))]!.requests.average / 2));
    // Warmed up at that rate like the peak run: the callers' verified tokens are memoized.
    await paced(t, WARMUP, rate);
    const half = await paced(t, DURATION, rate);
    failed += half.non2xx + half.errors;
    log(`[${elapsed()}] ${t.name} at ${rate} req/s: p50 ${half.latency.p50} ms, p99 ${half.latency.p99} ms`);
    t.halves.push(half);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`peak round ${round} of ${ROUNDS}`);
    for (const t of [bare, bareOnApiServer, recommend]) await peakRun(t);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    log(`half-peak round ${round} of ${ROUNDS}`);
    for (const t of [bare, recommend]) await halfPeakRun(t);
  }
  for (const t of others) await peakRun(t);
  const loadTags = others.includes(tag);
  const coldTags = loadTags ? await measureOneAtATime(apiUrl, tagRequests.cold, 40) : undefined;
  const warmTags = loadTags ? await measureOneAtATime(apiUrl, tagRequests.warm, 1_000) : undefined;

  // --- the report ---------------------------------------------------------------------------
  const ratios = bare.peaks.map((b, i) => recommend.peaks[i]!.requests.average / b.requests.average);
  const onApiServer = bareOnApiServer.peaks.map((b, i) => recommend.peaks[i]!.requests.average / b.requests.average);
  const medianRound = medianIndex(ratios);
  const p99s = recommend.halves.map((h) => h.latency.p99);
  const p99 = p99s[medianIndex(p99s)]!;
  log('');
  log(`soulgraph API benchmark: ${profileCount} profiles, ${RECOMMENDATIONS_PER_PROFILE} recommendations each, ${tokens.length} callers`);
  log(`${os.cpus().length} cores shared by the load generator, the servers, ClickHouse and Redis; ${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s of warm-up`);
  log('');
  const rows = targets.map((t) => {
    const peak = t.peaks[t.peaks.length > 1 ? medianRound : 0]!;
    const half = t.halves.length > 0 ? t.halves[medianIndex(t.halves.map((h) => h.latency.p99))] : undefined;
    return [t.name, String(t.bytes), String(Math.round(peak.requests.average)), String(peak.latency.p99), half ? String(half.achievedRate) : '-', half ? String(half.latency.p99) : '-'];
  });
  for (const line of table([['endpoint', 'bytes', 'req/s', 'p99 ms', 'half-peak req/s', 'p99 ms @half'], ...rows])) log(line);
  log('');
  log(`recommend / bare by round: ${ratios.map((r) => r.toFixed(3)).join(', ')}; recommend / bare on the API's server: ${onApiServer.map((r) => r.toFixed(3)).join(', ')}`);
  log(`recommend req/s / bare req/s          ${ratios[medianRound]!.toFixed(3)}   target >= ${TARGET_RATIO.toFixed(2)}  ${ratios[medianRound]! >= TARGET_RATIO ? 'MET' : 'NOT MET'}  (median of ${ROUNDS} rounds)`);
  log(`recommend p99 at half its peak        ${p99} ms   target < ${TARGET_P99_MS} ms  ${p99 < TARGET_P99_MS ? 'MET' : 'NOT MET'}  (median of ${ROUNDS} rounds)`);
  if (warmTags && coldTags) for (const line of tagVerdict(warmTags, coldTags)) log(line);
  log(`reproduce: BENCH_PROFILES=${PROFILES} BENCH_ROUNDS=${ROUNDS} BENCH_DURATION=${DURATION} BENCH_CONNECTIONS=${CONNECTIONS} npm run bench:api`);
  if (failed > 0) {
    log(`INVALID: ${failed} requests failed; the numbers above do not measure a working API`);
    process.exitCode = 1;
  }
} finally {
  await shutdown.run();
}

interface Target {
  name: string;
  url: string;
  requests: autocannon.Request[];
  bytes?: number;
  peaks: autocannon.Result[];
  halves: PacedLoadResult[];
}

function target(name: string, url: string, requests: autocannon.Request[]): Target {
  return { name, url, requests, peaks: [], halves: [] };
}

/** Redis rewrites its append-only file after the serving copy is loaded; measuring during that rewrite would charge it to whichever run comes first. */
async function settleRedisPersistence(url: string): Promise<void> {
  const redis = new Redis(url);
  try {
    while (/aof_rewrite_in_progress:1|aof_rewrite_scheduled:1|rdb_bgsave_in_progress:1/.test(await redis.info('persistence'))) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    redis.disconnect();
  }
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
  return pacedLoad({ url: target.url, requests: target.requests, rate, seconds, sockets: CONNECTIONS });
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
