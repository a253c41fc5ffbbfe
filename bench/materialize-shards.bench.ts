/**
 * npm run bench:materialize-shards: the nightly run on a local cluster of 1 shard, then of 2
 * shards (one replica each, with ZooKeeper and a Redis Cluster of 3 masters), the same
 * generated world loaded into each. CLICKHOUSE_NODE_URLS names every node, so each shard's
 * node computes its share of the buckets (pipeline/materialize/bucket-nodes.ts).
 *
 * Both clusters run on this machine's cores, so wall time says little about separate
 * machines: it prints, per node, the seconds its bucket jobs took (compute and publish), and
 * the critical path a cluster of separate machines like this one would have: the working set
 * (built once, replicated to every node) plus the busiest node's bucket seconds divided by
 * MATERIALIZE_CONCURRENCY (the jobs a node runs at once on its cores). The run's wall time
 * also holds the tags, mirrors and complete steps.
 *
 *   BENCH_PROFILES=20000  BENCH_BUCKETS=8  BENCH_APP_FOLLOW_SCALE=9
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { parseConfig, type Config } from '../shared/config.ts';
import { startLocalCluster } from '../shared/local-stack/local-cluster.ts';
import { MATERIALIZE_STEPS_QUEUE } from '../shared/queues.ts';
import { redisConnection } from '../shared/redis.ts';
import { generateWorld, type GeneratedKind } from '../pipeline/generate/world-generator.ts';
import { bucketJobId } from '../pipeline/materialize/run/materialize-run.ts';
import type { BucketResult } from '../pipeline/materialize/bucket.ts';
import { enqueueRun, watchRun } from '../pipeline/materialize/run/run-watch.ts';
import { startWorkers } from '../pipeline/workers.ts';
import { loadDirectly } from './direct-load.ts';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 20_000);
const BUCKETS = Number(process.env.BENCH_BUCKETS ?? 8);
const APP_FOLLOW_SCALE = Number(process.env.BENCH_APP_FOLLOW_SCALE ?? 9);
const silent = pino({ level: 'silent' });

interface ShardsResult {
  shards: number;
  concurrency: number;
  runSeconds: number;
  workingSetSeconds: number;
  /** Seconds of bucket work (compute and publish) per node, by host:port. */
  perNode: Map<string, number>;
  rows: number;
}

const work = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-materialize-shards-'));
try {
  console.log(`generating a world of ${PROFILES} profiles (app-follow scale ${APP_FOLLOW_SCALE}) ...`);
  const worldDir = path.join(work, 'world');
  const manifest = await generateWorld({ profiles: PROFILES, seed: 7, outDir: worldDir, appFollowScale: APP_FOLLOW_SCALE });
  const results: ShardsResult[] = [];
  for (const shards of [1, 2]) {
    const cluster = await startLocalCluster({ dir: path.join(work, `cluster-${shards}`), shards, replicas: 1, redisMasters: 3, redisReplicasPerMaster: 0 });
    try {
      const config = parseConfig({
        CLICKHOUSE_URL: cluster.clickhouse[0]!.url,
        CLICKHOUSE_CLUSTER: cluster.name,
        CLICKHOUSE_NODE_URLS: cluster.clickhouse.map((m) => m.url).join(','),
        CLICKHOUSE_DATABASE: 'bench',
        REDIS_CLUSTER_NODES: cluster.redisClusterNodes,
        REC_PROFILES_PER_BUCKET: String(Math.ceil(PROFILES / BUCKETS)),
        LOG_LEVEL: 'warn',
      });
      await migrate(config);
      const ch = createClickHouse(config);
      try {
        for (const [kind, file] of Object.entries(manifest.files) as [GeneratedKind, { file: string }][]) {
          await loadDirectly(ch, kind, path.join(worldDir, file.file), 24 * 3600);
        }
      } finally {
        await ch.close();
      }
      console.log(`${shards} shard(s): loaded, running the nightly run ...`);
      results.push({ shards, concurrency: config.MATERIALIZE_CONCURRENCY, ...(await timedRun(config)) });
      const r = results.at(-1)!;
      console.log(`  run ${r.runSeconds.toFixed(1)} s, working set ${r.workingSetSeconds.toFixed(1)} s, ${r.rows.toLocaleString('en-US')} rows; buckets per node: ${[...r.perNode].map(([n, s]) => `${n} ${s.toFixed(1)} s`).join(', ')}`);
    } finally {
      await cluster.stop();
    }
  }
  printTable(results);
  console.log(`reproduce: BENCH_PROFILES=${PROFILES} BENCH_BUCKETS=${BUCKETS} BENCH_APP_FOLLOW_SCALE=${APP_FOLLOW_SCALE} npm run bench:materialize-shards`);
} finally {
  await rm(work, { recursive: true, force: true });
}

async function timedRun(config: Config): Promise<Omit<ShardsResult, 'shards' | 'concurrency'>> {
  const workers = await startWorkers(config, silent, { kinds: [], maintenance: false, materialize: true });
  const steps = new Queue(MATERIALIZE_STEPS_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    const started = Date.now();
    const view = await watchRun(config, await enqueueRun(config, 'bench'), () => {});
    if (view.state !== 'done') throw new Error(`run ${view.state}: ${view.error}`);
    const runSeconds = (Date.now() - started) / 1000;
    const jobs = await Promise.all(view.buckets.map((b) => steps.getJob(bucketJobId(view.snapshotId!, b.bucket))));
    const firstBucket = Math.min(...jobs.map((job) => job!.processedOn!));
    const perNode = new Map<string, number>();
    for (const job of jobs) {
      const result = job!.returnvalue as BucketResult;
      const node = result.node ?? 'CLICKHOUSE_URL';
      perNode.set(node, (perNode.get(node) ?? 0) + (result.computeSeconds ?? 0) + (result.publishSeconds ?? 0));
    }
    return { runSeconds, workingSetSeconds: (firstBucket - started) / 1000, perNode, rows: view.result!.rows };
  } finally {
    await steps.close();
    await workers.close();
  }
}

function printTable(results: ShardsResult[]): void {
  const [one, two] = results as [ShardsResult, ShardsResult];
  const busiest = (r: ShardsResult) => Math.max(...r.perNode.values());
  const total = (r: ShardsResult) => [...r.perNode.values()].reduce((a, b) => a + b, 0);
  const criticalPath = (r: ShardsResult) => r.workingSetSeconds + busiest(r) / r.concurrency;
  console.log('\nshards   run (s)   working set (s)   bucket job s, all nodes   busiest node   critical path (s)   rows');
  for (const r of results) {
    console.log(
      `${String(r.shards).padStart(6)}  ${r.runSeconds.toFixed(1).padStart(8)}  ${r.workingSetSeconds.toFixed(1).padStart(16)}  ${total(r).toFixed(1).padStart(24)}  ${busiest(r).toFixed(1).padStart(13)}  ${criticalPath(r).toFixed(1).padStart(18)}  ${r.rows}`,
    );
  }
  console.log(`\nbusiest node's bucket seconds, 2 shards / 1 shard: ${(busiest(two) / busiest(one)).toFixed(2)}; critical path ${(criticalPath(two) / criticalPath(one)).toFixed(2)} (the same rows: ${one.rows === two.rows ? 'yes' : 'NO'})`);
}
