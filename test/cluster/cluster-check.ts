/**
 * npm run cluster:check: soulgraph on a real local cluster (shared/local-stack/local-cluster.ts:
 * ZooKeeper, 2 shards x 2 replicas of clickhouse-server, a 3-master Redis Cluster with one
 * replica each), against one plain server of each as the reference.
 *
 * It migrates both, ingests the same generated world into both through the real queues and
 * workers (on the cluster: Redis Cluster queues, inserts through Distributed tables), with a
 * ClickHouse replica killed (SIGKILL) in the middle of one kind and the Redis master of the
 * queues killed in the middle of another, and asserts:
 * - every node has the same tables, each with the engine its placement says;
 * - every table read through the cluster (FINAL) holds exactly the rows the single server
 *   holds: same count, same content fingerprint (nothing lost, nothing twice);
 * - both replicas of each shard hold the same rows once the killed one is back;
 * - the queues went on after their Redis master died (its replica took over);
 * - the nightly run on the cluster, with another replica killed after its first bucket,
 *   makes the snapshot the single server makes (recommendations and tags);
 * - a newcomer's list computed on demand (its follows, followers and transfers read live
 *   through the Distributed tables) is the list the single server computes.
 *
 * Not inside `npm test`: it starts 12 server processes and takes a minute or two.
 *   npm run cluster:check [-- --profiles 500] [-- --keep]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { z } from 'zod';
import { generatedKinds, generateWorld, type WorldManifest } from '../../pipeline/generate/world-generator.ts';
import { runIngest } from '../../pipeline/ingest/ingest-run.ts';
import { listOnDemand } from '../../pipeline/materialize/run/on-demand-lists.ts';
import { WorldCache } from '../../pipeline/materialize/run/loaded-world.ts';
import { createServingWriter } from '../../pipeline/serving/serving-writer.ts';
import { bucketsDone, enqueueRun, watchRun } from '../../pipeline/materialize/run/run-watch.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { localTableName, TABLE_PLACEMENT } from '../../shared/clickhouse/cluster-schema.ts';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { identifier, sql, SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../../shared/config.ts';
import { startLocalCluster, type ClickHouseMember, type LocalCluster, type RedisMember } from '../../shared/local-stack/local-cluster.ts';
import { ensureLocalStack, type LocalStack } from '../../shared/local-stack/local-stack.ts';
import { redisCommand } from '../../shared/local-stack/redis-server.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import { onNodeOf } from '../support/cluster-node.ts';
import { addNewcomers } from '../support/newcomers.ts';
import { issueUnifiedToken } from '../../api/auth/unified-token.ts';
import { loadSigningKeys } from '../../api/auth/signing-keys.ts';
import { startApi, type RunningApi } from '../../api/server/server.ts';
import { newestReadySnapshot } from '../../api/recommend/recommendations.ts';
import { mintApiKey, type ApiKeyRow } from '../../shared/api-keys.ts';
import { servingKeys } from '../../shared/serving.ts';
import { generateSigningKeyJwk } from '../../shared/signing-key-jwk.ts';

const { values: args } = parseArgs({
  options: {
    profiles: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '7' },
    keep: { type: 'boolean', default: false },
  },
});

const started = Date.now();
const say = (line: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const silent = pino({ level: 'silent' });
const failures: string[] = [];
const passes: string[] = [];

function check(ok: boolean, what: string, detail = ''): void {
  (ok ? passes : failures).push(what);
  say(`${ok ? 'PASS' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
}

const DATABASE = 'soulgraph';
const onNode = onNodeOf(DATABASE);
/** Several buckets even in a small world, so that a replica dies between bucket jobs. */
const PROFILES_PER_BUCKET = 100;
/** What the cluster and the single server share: the same buckets and scorer, and tokens and cursors signed alike, so that their answers can be compared byte for byte. */
const API_SETTINGS = {
  LOG_LEVEL: 'silent',
  REC_PROFILES_PER_BUCKET: String(PROFILES_PER_BUCKET),
  CURSOR_SECRET: randomBytes(32).toString('hex'),
  API_SIGNING_KEYS: JSON.stringify([await generateSigningKeyJwk('cluster-check')]),
};

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-cluster-'));
  let cluster: LocalCluster | undefined;
  let single: LocalStack | undefined;
  try {
    say(`starting the local cluster and a single server for reference in ${dir}`);
    [cluster, single] = await Promise.all([
      startLocalCluster({ dir: path.join(dir, 'cluster') }),
      ensureLocalStack(parseConfig({}), { dataDir: path.join(dir, 'single'), reuse: false, stateFile: false }),
    ]);
    const queueMaster = await queueSlotMaster(cluster);
    const clusterConfig = parseConfig({
      CLICKHOUSE_URL: cluster.clickhouse[0]!.url,
      CLICKHOUSE_CLUSTER: cluster.name,
      CLICKHOUSE_DATABASE: DATABASE,
      REDIS_CLUSTER_NODES: cluster.redisClusterNodes,
      // The nightly run spreads its buckets over every node (one of which it kills mid-run).
      CLICKHOUSE_NODE_URLS: cluster.clickhouse.map((m) => m.url).join(','),
      ...API_SETTINGS,
    });
    const singleConfig = parseConfig({
      CLICKHOUSE_URL: single.clickhouseUrl,
      REDIS_URL: single.redisUrl,
      CLICKHOUSE_DATABASE: DATABASE,
      ...API_SETTINGS,
    });
    say(`cluster: ClickHouse ${cluster.clickhouse.map((m) => `${m.name}=${m.url}`).join(' ')}; Redis ${clusterConfig.REDIS_CLUSTER_NODES.length} nodes, queue prefix ${clusterConfig.QUEUE_PREFIX}`);

    await Promise.all([migrate(clusterConfig), migrate(singleConfig)]);
    say('migrated both');
    await checkSchema(cluster);

    const manifest = await generateWorld({ profiles: Number(args.profiles), seed: Number(args.seed), outDir: path.join(dir, 'world') });
    const worldDir = path.join(dir, 'world');
    say(`generated a world of ${manifest.profiles} profiles: ${Object.entries(manifest.files).map(([k, f]) => `${k} ${f.rows}`).join(', ')}`);

    await ingestWorld(singleConfig, manifest, worldDir, {});
    say('ingested the world into the single server');
    const victim = cluster.clickhouse.find((m) => m.shard === 2 && m.replica === 2)!;
    await ingestWorld(clusterConfig, manifest, worldDir, {
      transactions: killClickHouseReplica(cluster, victim),
      'token-transfers': killRedisMaster(cluster, queueMaster),
    });
    say('ingested the world into the cluster');

    await syncReplicas(cluster);
    await compareTables(clusterConfig, singleConfig);
    await compareReplicas(cluster);

    await materialize(singleConfig, 'the single server');
    await materialize(clusterConfig, 'the cluster', killClickHouseReplica(cluster, cluster.clickhouse.find((m) => m.shard === 1 && m.replica === 2)!));
    await syncReplicas(cluster);
    await compareSnapshots(clusterConfig, singleConfig);
    await checkApi(cluster, clusterConfig, singleConfig);
    // After the API's check, whose callers are the snapshot's profiles: these newcomers are not.
    await checkOnDemand(clusterConfig, singleConfig);
  } finally {
    await Promise.all([cluster?.stop(), single?.stop()]);
    if (!args.keep) await rm(dir, { recursive: true, force: true });
  }
  say(`${passes.length} checks passed, ${failures.length} failed${failures.length ? `:\n  ${failures.join('\n  ')}` : ''}`);
  process.exitCode = failures.length ? 1 : 0;
}

/**
 * Newcomers after the run, on both: each follows whom a profile of the world follows, holds
 * its wallets, and is followed by that profile's followees; their lists computed on demand
 * must be the same on the cluster as on the single server.
 */
async function checkOnDemand(clusterConfig: Config, singleConfig: Config): Promise<void> {
  const lists: string[][] = [];
  for (const config of [clusterConfig, singleConfig]) {
    const ch = createClickHouse(config);
    const serving = createServingWriter(config);
    const worlds = new WorldCache(ch, config, silent);
    try {
      const newcomers = await addNewcomers(ch, ON_DEMAND_CALLERS, { followedBack: true });
      const snapshotId = (await newestReadySnapshot(ch))!;
      const rows: string[] = [];
      for (const id of newcomers) {
        await listOnDemand({ config, clickhouse: ch, serving, worlds }, snapshotId, id);
        const list = await ch.query(
          sql`SELECT rank, candidate_id, toString(round(score, 6)) AS score, toString(reason_kind) AS reason, reason_subject
              FROM recommendations WHERE snapshot_id = ${snapshotId} AND profile_id = ${id} ORDER BY rank`,
          z.object({ rank: z.coerce.number(), candidate_id: z.string(), score: z.string(), reason: z.string(), reason_subject: z.string() }),
        );
        rows.push(...list.map((r) => `${id} ${r.rank} ${r.candidate_id} ${r.score} ${r.reason} ${r.reason_subject}`));
      }
      lists.push(rows);
    } finally {
      await worlds.close();
      await serving.close();
      await ch.close();
    }
  }
  const [onCluster, onSingle] = lists as [string[], string[]];
  const differing = onCluster.filter((row, i) => row !== onSingle[i]);
  check(
    onCluster.length > ON_DEMAND_CALLERS && onCluster.length === onSingle.length && differing.length === 0,
    "a newcomer's list computed on demand on the cluster is the single server's",
    `${ON_DEMAND_CALLERS} newcomers, ${onCluster.length} rows against ${onSingle.length}, ${differing.length} differ${differing[0] ? `: ${differing[0]}` : ''}`,
  );
}

/** The Redis master that serves the queues' hash tag. */
async function queueSlotMaster(cluster: LocalCluster): Promise<RedisMember> {
  const reply = await redisCommand(cluster.redis[0]!.url, 'CLUSTER KEYSLOT {soulgraph}');
  return cluster.redisMasterOf(Number(/:(\d+)/.exec(reply)?.[1]));
}

const tableRow = z.object({ name: z.string(), engine: z.string() });

async function checkSchema(cluster: LocalCluster): Promise<void> {
  const perNode = await Promise.all(
    cluster.clickhouse.map((member) =>
      onNode(member, (ch) => ch.query(sql`SELECT name, engine FROM system.tables WHERE database = ${DATABASE} ORDER BY name`, tableRow)),
    ),
  );
  const first = JSON.stringify(perNode[0]);
  check(perNode.every((tables) => JSON.stringify(tables) === first), 'every node has the same tables with the same engines', `${perNode[0]!.length} tables each`);
  const engines = new Map(perNode[0]!.map((t) => [t.name, t.engine]));
  const wrong = Object.entries(TABLE_PLACEMENT).flatMap(([table, placement]) => {
    if (placement.kind === 'everywhere') return /^Replicated/.test(engines.get(table) ?? '') ? [] : [`${table}: ${engines.get(table)}`];
    const local = engines.get(localTableName(table)) ?? '';
    return engines.get(table) === 'Distributed' && /^Replicated/.test(local) ? [] : [`${table}: ${engines.get(table)} over ${local}`];
  });
  check(wrong.length === 0, 'sharded tables are Distributed over Replicated *_local tables; the others Replicated on every node', wrong.join(', '));
}

type Disruption = (phase: 'started' | 'finished') => Promise<void>;

async function ingestWorld(config: Config, manifest: WorldManifest, worldDir: string, disruptions: Partial<Record<KindName, Disruption>>): Promise<void> {
  for (const kind of generatedKinds) {
    const file = manifest.files[kind];
    if (!file) continue;
    const disruption = disruptions[kind];
    const workers = await startWorkers(config, silent, { kinds: [kind], maintenance: false });
    let disrupted: Promise<void> | undefined;
    try {
      const summary = await runIngest(config, {
        kind,
        files: [path.join(worldDir, file.file)],
        format: 'canonical',
        chunkRows: 500,
        pollMs: 50,
        sourceName: (f) => `world/${path.basename(f)}`,
        onProgress: (p) => {
          if (process.env.CLUSTER_CHECK_DEBUG) say(`${kind}: ${JSON.stringify(p)}`);
          // Once a third of the rows are in: the disruption lands mid-ingest, with jobs before and after it.
          if (disruption && !disrupted && p.rowsDone >= file.rows / 3) disrupted = disruption('started');
        },
      });
      say(`${kind}: ${summary.accepted} accepted, ${summary.rejected} rejected`);
      if (summary.failedChunks.length > 0) throw new Error(`${kind}: ${summary.failedChunks[0]!.reason}`);
      if (disruption) {
        check(disrupted !== undefined, `${kind}: the disruption happened mid-ingest`);
        await disrupted;
        check(summary.accepted + summary.rejected === file.rows, `${kind}: every row was ingested despite it`, `${summary.accepted} accepted, ${summary.rejected} rejected of ${file.rows}`);
      }
    } finally {
      await closeWorkers(workers, kind, disruption !== undefined);
    }
    if (disruption) await disruption('finished');
  }
}

const WORKERS_CLOSE_MS = 30_000;

/**
 * Closes the kind's workers, waiting WORKERS_CLOSE_MS at most. BullMQ's Worker.close() waits
 * forever for a client that lost its Redis (bullmq#4656): startWorkers' close() disconnects
 * such workers after its grace (pipeline/workers.ts), which is said here; what they were doing
 * is checked by the rows (nothing lost, nothing twice).
 */
async function closeWorkers(workers: RunningWorkers, label: string, disrupted: boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([workers.close().then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), WORKERS_CLOSE_MS)))]);
  clearTimeout(timer);
  const forced = workers.stillClosing();
  if (forced.length > 0) say(`${label}: disconnected after the grace, still closing: ${forced.join(', ')}`);
  if (disrupted || !closed) check(closed, `${label}: the workers closed within ${WORKERS_CLOSE_MS / 1000} s`);
}

function killClickHouseReplica(cluster: LocalCluster, member: ClickHouseMember): Disruption {
  return async (phase) => {
    if (phase === 'started') {
      await cluster.kill(member);
      say(`killed ClickHouse replica ${member.name} (SIGKILL)`);
    } else {
      await cluster.restart(member);
      say(`started ClickHouse replica ${member.name} again`);
    }
  };
}

function killRedisMaster(cluster: LocalCluster, master: RedisMember): Disruption {
  return async (phase) => {
    if (phase === 'started') {
      await cluster.kill(master);
      say(`killed the queues' Redis master :${master.port} (SIGKILL)`);
      return;
    }
    const slot = Number(/:(\d+)/.exec(await redisCommand(cluster.redis.find((m) => m !== master)!.url, 'CLUSTER KEYSLOT {soulgraph}'))?.[1]);
    const now = await cluster.redisMasterOf(slot);
    check(now !== master, "a replica took over the queues' slot", `master now :${now.port}`);
    await cluster.restart(master);
    say(`started the old Redis master :${master.port} again (it rejoins as a replica)`);
  };
}

/**
 * The nightly run, with in-process workers; `disruption` starts with the run and ends after it.
 * On the cluster two sets of workers take the run's buckets, as two machines would: each
 * loads the world from ClickHouse and ranks the buckets it takes.
 */
async function materialize(config: Config, where: string, disruption?: Disruption): Promise<void> {
  const rankers = config.CLICKHOUSE_CLUSTER ? 2 : 1;
  const workers = await Promise.all(Array.from({ length: rankers }, () => startWorkers(config, silent, { kinds: [], maintenance: false, materialize: true })));
  let disrupted: Promise<void> | undefined;
  try {
    const view = await watchRun(config, await enqueueRun(config, 'cluster-check'), (v) => {
      // Once the first bucket is done: the replica dies between buckets of one snapshot.
      if (disruption && !disrupted && bucketsDone(v) >= 1) disrupted = disruption('started');
    }, 100);
    await disrupted;
    const failed = view.buckets.filter((b) => b.state !== 'done').length;
    check(view.state === 'done', `the nightly run on ${where} made snapshot ${view.snapshotId}`, `${view.buckets.length} buckets, ${failed} not done${view.error ? `: ${view.error}` : ''}`);
    if (disruption) check(disrupted !== undefined, 'a ClickHouse replica was killed mid-run');
    if (rankers > 1) {
      const perWorker = view.buckets.reduce((m, b) => m.set(b.result?.worker ?? '?', (m.get(b.result?.worker ?? '?') ?? 0) + 1), new Map<string, number>());
      check(perWorker.size >= 2 && !perWorker.has('?'), `the nightly run on ${where} spread its buckets over the rank workers`, [...perWorker].map(([worker, n]) => `${worker}: ${n}`).join(', '));
    }
  } finally {
    for (const running of workers) await closeWorkers(running, `the nightly run on ${where}`, disruption !== undefined);
  }
  if (disrupted) await disruption!('finished');
}

const callerRow = z.object({ profile_id: z.string(), address: z.string() });
/** How many profiles' first pages the two APIs are compared on. */
const API_CALLERS = 50;
/** Newcomers whose lists checkOnDemand computes on each. */
const ON_DEMAND_CALLERS = 5;
/** How long the API is asked while a ClickHouse replica and a Redis master are dead, and how much of the end must be all 200. */
const FAULT_SECONDS = 15;
const RECOVERED_SECONDS = 4;

/**
 * The API on the cluster (serving copy on the Redis Cluster, reads through the Distributed
 * tables) answers each caller's first page as the API on the single server does; then,
 * asked while a ClickHouse replica and the Redis master holding most of the serving copy
 * are killed, it answers 200 or 503/10503 and nothing else, and only 200 once a replica
 * has taken over the master's slots.
 */
async function checkApi(cluster: LocalCluster, clusterConfig: Config, singleConfig: Config): Promise<void> {
  const onSingle = createClickHouse(singleConfig);
  const callers = await onSingle.query(
    sql`SELECT profile_id, addresses[1] AS address FROM profiles FINAL WHERE notEmpty(addresses) ORDER BY profile_id LIMIT ${API_CALLERS}`,
    callerRow,
  );
  const apiKey = mintApiKey();
  const now = Math.floor(Date.now() / 1000);
  const keyRow = { key_id: apiKey.keyId, key_hash: apiKey.keyHash, name: 'cluster-check', domains: ['check.localhost'], rate_limit_per_minute: 1_000_000, created_at: now, revoked_at: null, updated_at: now } satisfies ApiKeyRow;
  const onCluster = createClickHouse(clusterConfig);
  await Promise.all([onSingle.insert('api_keys', [keyRow]), onCluster.insert('api_keys', [keyRow])]);
  await Promise.all([onSingle.close(), onCluster.close()]);
  const keys = await loadSigningKeys(singleConfig);
  const tokens = await Promise.all(callers.map((c) => issueUnifiedToken(keys, singleConfig, { profileId: c.profile_id, address: c.address })));

  const [clusterApi, singleApi] = await Promise.all([startApi(clusterConfig, silent, 0), startApi(singleConfig, silent, 0)]);
  try {
    const ask = (api: RunningApi, token: string) =>
      fetch(`http://127.0.0.1:${api.port}/api/v1/recommend?limit=20`, { headers: { ApiKey: apiKey.key, Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) }).then(
        async (response) => ({ status: response.status, body: await response.text() }),
        (error: Error) => ({ status: 0, body: error.name }),
      );
    const answers = await Promise.all(tokens.map(async (token) => Promise.all([ask(clusterApi, token), ask(singleApi, token)])));
    const differing = answers.filter(([a, b]) => a.status !== 200 || a.body !== b.body);
    const listed = answers.filter(([a]) => a.status === 200 && (JSON.parse(a.body) as { data: { list: unknown[] } }).data.list.length > 0).length;
    check(differing.length === 0 && listed > 0, "the API on the cluster answers each caller's first page as the API on the single server", `${answers.length} callers, ${listed} with recommendations, ${differing.length} differ${differing[0] ? `: ${differing[0][0].status} ${differing[0][0].body.slice(0, 200)}` : ''}`);

    const replica = cluster.clickhouse.find((m) => m.shard === 2 && m.replica === 2)!;
    const master = await busiestServingMaster(cluster, clusterConfig);
    await Promise.all([cluster.kill(replica), cluster.kill(master)]);
    say(`killed ClickHouse replica ${replica.name} and Redis master :${master.port} (SIGKILL) under API load`);
    const seen: { at: number; status: number; code: string }[] = [];
    const start = Date.now();
    for (let i = 0; Date.now() - start < FAULT_SECONDS * 1000; i++) {
      const { status, body } = await ask(clusterApi, tokens[i % tokens.length]!);
      seen.push({ at: Date.now() - start, status, code: status === 0 ? body : ((JSON.parse(body) as { code: string }).code) });
      await sleep(50);
    }
    await Promise.all([cluster.restart(replica), cluster.restart(master)]);
    const tally = [...seen.reduce((m, s) => m.set(`${s.status}/${s.code}`, (m.get(`${s.status}/${s.code}`) ?? 0) + 1), new Map<string, number>())].map(([k, n]) => `${k} x${n}`).join(', ');
    check(seen.every((s) => (s.status === 200 && s.code === '0') || (s.status === 503 && s.code === '10503')), 'the API answered 200 or 503/10503 while a replica and a Redis master were dead', tally);
    const late = seen.filter((s) => s.at >= (FAULT_SECONDS - RECOVERED_SECONDS) * 1000);
    check(late.length > 0 && late.every((s) => s.status === 200), `the API answered 200 again within ${FAULT_SECONDS - RECOVERED_SECONDS} s (a replica took over the master's slots)`, `${late.length} answers in the last ${RECOVERED_SECONDS} s`);
  } finally {
    await Promise.all([clusterApi.close(), singleApi.close()]);
  }
}

/** The Redis master holding the most stored lists: killing it takes the most pages away. */
async function busiestServingMaster(cluster: LocalCluster, config: Config): Promise<RedisMember> {
  const pattern = `${servingKeys(config).list(0, '').replace(/:0:$/, '')}:*`;
  const counts = await Promise.all(
    cluster.redis.map(async (member) => {
      const redis = new Redis(member.url);
      try {
        if ((await redis.role())[0] !== 'master') return 0;
        let [cursor, found] = ['0', 0];
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
          [cursor, found] = [next, found + keys.length];
        } while (cursor !== '0');
        return found;
      } finally {
        redis.disconnect();
      }
    }),
  );
  return cluster.redis[counts.indexOf(Math.max(...counts))]!;
}

const snapshotRow = z.object({ rows: z.coerce.number(), profiles: z.coerce.number(), fingerprint: z.string() });

/** The newest ready snapshot on the cluster equals the single server's: per profile lists, scores (to 1e-6), reasons, tags. */
async function compareSnapshots(clusterConfig: Config, singleConfig: Config): Promise<void> {
  const newest = sql`(SELECT max(snapshot_id) FROM recommendation_snapshots FINAL WHERE status = 'ready')`;
  const lists = sql`
    SELECT count() AS rows, uniqExact(profile_id) AS profiles,
           toString(sum(cityHash64(profile_id, rank, candidate_id, toString(round(score, 6)), toString(reason_kind), reason_chain_id, reason_subject))) AS fingerprint
    FROM recommendations WHERE snapshot_id = ${newest}`;
  const tags = sql`
    SELECT count() AS rows, uniqExact(profile_id) AS profiles, toString(sum(cityHash64(profile_id, arrayStringConcat(tags, ',')))) AS fingerprint
    FROM profile_tags WHERE snapshot_id = ${newest}`;
  const onCluster = createClickHouse(clusterConfig);
  const onSingle = createClickHouse(singleConfig);
  try {
    for (const [what, query] of [['recommendations', lists], ['profile tags', tags]] as const) {
      const [[a], [b]] = await Promise.all([onCluster.query(query, snapshotRow), onSingle.query(query, snapshotRow)]);
      check(
        a!.rows > 0 && a!.rows === b!.rows && a!.profiles === b!.profiles && a!.fingerprint === b!.fingerprint,
        `${what}: the cluster's snapshot equals the single server's`,
        `${a!.rows} rows for ${a!.profiles} profiles vs ${b!.rows} for ${b!.profiles}${a!.fingerprint === b!.fingerprint ? '' : ', contents differ'}`,
      );
    }
  } finally {
    await Promise.all([onCluster.close(), onSingle.close()]);
  }
}

/** Waits until every replica has fetched every part its peers have (SYSTEM SYNC REPLICA). */
async function syncReplicas(cluster: LocalCluster): Promise<void> {
  const replicated = z.object({ table: z.string() });
  for (const member of cluster.clickhouse) {
    await onNode(member, async (ch) => {
      const tables = await ch.query(sql`SELECT table FROM system.replicas WHERE database = ${DATABASE}`, replicated);
      for (const { table } of tables) await ch.command(sql`SYSTEM SYNC REPLICA ${identifier(DATABASE)}.${identifier(table)}`);
    });
  }
  say('every replica is in sync');
}

const columnRow = z.object({ name: z.string() });
const fingerprintRow = z.object({ rows: z.coerce.number(), fingerprint: z.string() });

/** Columns that say when a row was written, not what it says: they differ between any two ingestions. */
const WRITE_TIME_COLUMNS = new Set(['ingested_at', 'rejected_at']);

/** Every ingested table read through the cluster equals the single server's: count and content, after FINAL. */
async function compareTables(clusterConfig: Config, singleConfig: Config): Promise<void> {
  const onCluster = createClickHouse(clusterConfig);
  const onSingle = createClickHouse(singleConfig);
  try {
    const tables = Object.keys(TABLE_PLACEMENT).filter((t) => !t.startsWith('mat_') && !['schema_migrations', 'recommendations', 'profile_tags'].includes(t));
    for (const table of tables) {
      const columns = (await onSingle.query(sql`SELECT name FROM system.columns WHERE database = ${DATABASE} AND table = ${table} ORDER BY name`, columnRow))
        .map((c) => c.name)
        .filter((c) => !WRITE_TIME_COLUMNS.has(c));
      const cells = columns.map((c) => `ifNull(toString(${identifier(c).text}), 'NULL')`).join(', ');
      const fingerprint = new SqlFragment(`ifNull(toString(sum(cityHash64(${cells}))), '')`);
      const query = sql`SELECT count() AS rows, ${fingerprint} AS fingerprint FROM ${identifier(table)} FINAL`;
      const [[a], [b]] = await Promise.all([onCluster.query(query, fingerprintRow), onSingle.query(query, fingerprintRow)]);
      if (a!.rows === 0 && b!.rows === 0) continue;
      check(a!.rows === b!.rows && a!.fingerprint === b!.fingerprint, `${table}: the cluster holds what the single server holds`, `${a!.rows} rows vs ${b!.rows}`);
    }
  } finally {
    await Promise.all([onCluster.close(), onSingle.close()]);
  }
}

const replicaRow = z.object({ table: z.string(), engine: z.string() });
const countRow = z.object({ rows: z.coerce.number() });

/** The rows each replicated table holds on this node, as FINAL reads them (the same whatever merges ran). */
async function replicaCounts(ch: ClickHouse): Promise<Record<string, number>> {
  const tables = await ch.query(
    sql`SELECT name AS table, engine FROM system.tables WHERE database = ${DATABASE} AND engine LIKE 'Replicated%' ORDER BY name`,
    replicaRow,
  );
  const counts: Record<string, number> = {};
  for (const { table, engine } of tables) {
    const final = engine.includes('Replacing') ? sql` FINAL` : sql``;
    const [row] = await ch.query(sql`SELECT count() AS rows FROM ${identifier(table)}${final}`, countRow);
    counts[table] = row!.rows;
  }
  return counts;
}

/** The two replicas of each shard hold the same rows (the killed one caught up). */
async function compareReplicas(cluster: LocalCluster): Promise<void> {
  const counts = await Promise.all(cluster.clickhouse.map((member) => onNode(member, replicaCounts)));
  for (const shard of [...new Set(cluster.clickhouse.map((m) => m.shard))]) {
    const replicas = cluster.clickhouse.flatMap((m, i) => (m.shard === shard ? [{ m, counts: counts[i]! }] : []));
    const [first, ...rest] = replicas;
    const same = rest.every((r) => JSON.stringify(r.counts) === JSON.stringify(first!.counts));
    const total = Object.values(first!.counts).reduce((sum, n) => sum + n, 0);
    check(same, `shard ${shard}: every replica holds the same rows in every table`, `${replicas.map((r) => r.m.name).join(', ')}: ${total} rows each`);
  }
}

// Exiting runs the local stacks' exit handlers, which kill every server this process started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

// Ends by process.exit: workers disconnected after a failover still hold BullMQ's timers (closeWorkers).
main().then(
  () => process.exit(),
  (error: unknown) => {
    say(`cluster:check stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
