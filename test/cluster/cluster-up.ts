/**
 * npm run cluster:up: the local cluster (shared/local-stack/local-cluster.ts) for a person to
 * try soulgraph on: ZooKeeper, 2 shards x 2 replicas of clickhouse-server, a Redis Cluster of
 * 3 masters with a replica each, migrated, with the settings to point soulgraph at it.
 * Runs until Ctrl-C, then stops every server and deletes its folder (unless --keep).
 *
 *   npm run cluster:up [-- --dir /tmp/sg-cluster] [-- --keep]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { parseConfig } from '../../shared/config.ts';
import { startLocalCluster } from '../../shared/local-stack/local-cluster.ts';
import { redisCommand } from '../../shared/local-stack/redis-server.ts';

const { values: args } = parseArgs({ options: { dir: { type: 'string' }, keep: { type: 'boolean', default: false } } });

async function main(): Promise<void> {
  const dir = args.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'soulgraph-cluster-')));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cluster = await startLocalCluster({ dir, log: say });
  // The queues' master first: the serving copy's writer still makes a plain client of the
  // first node (docs/cluster.md, not done), and every serving key shares the queues' slot.
  const slot = Number(/:(\d+)/.exec(await redisCommand(cluster.redis[0]!.url, 'CLUSTER KEYSLOT {soulgraph}'))?.[1]);
  const master = await cluster.redisMasterOf(slot);
  const settings = {
    CLICKHOUSE_URL: cluster.clickhouse[0]!.url,
    CLICKHOUSE_CLUSTER: cluster.name,
    REDIS_CLUSTER_NODES: [master, ...cluster.redis.filter((m) => m !== master)].map((m) => `127.0.0.1:${m.port}`).join(','),
  };
  try {
    await migrate(parseConfig(settings), { log: say });
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  say(`\nThe cluster is up (data in ${dir}). Point soulgraph at it with:\n`);
  for (const [name, value] of Object.entries(settings)) say(`  export ${name}=${value}`);
  say(`\nEvery node answers SQL: ${cluster.clickhouse.map((m) => `${m.name} ${m.url}`).join(', ')}`);
  say('What works on a cluster and what does not yet: docs/cluster.md. Ctrl-C stops it.');
  const stop = async () => {
    say('stopping the cluster');
    await cluster.stop();
    if (!args.keep && !args.dir) await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster:up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
