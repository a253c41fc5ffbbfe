/**
 * The small version of npm run cluster:check (test/cluster/cluster-check.ts): a real local
 * cluster of its own (ZooKeeper, 2 shards x 2 replicas of clickhouse-server, a Redis Cluster
 * of 3 masters with a replica each), the migrations in cluster mode, inserts through a
 * Distributed table with a replica killed, and a BullMQ queue whose Redis master dies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { dropPartitionsWhere } from '../../shared/clickhouse/partition-drop.ts';
import { alterOnEveryShard } from '../../shared/clickhouse/cluster-schema.ts';
import { awaitReplication } from '../../shared/clickhouse/replication-wait.ts';
import { replicationLeaders } from '../../shared/clickhouse/replication-leaders.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../../shared/config.ts';
import { startLocalCluster, type ClickHouseMember, type LocalCluster } from '../../shared/local-stack/local-cluster.ts';
import { redisCommand } from '../../shared/local-stack/redis-server.ts';
import { createRedis, redisConnection, servingRedisConnection } from '../../shared/redis.ts';
import { encodeServedList, servingKeys } from '../../shared/serving.ts';
import { createServedLists } from '../../api/recommend/served-lists.ts';
import { createServingWriter } from '../../pipeline/serving/serving-writer.ts';
import { deleteBlockSpan } from '../../pipeline/chain/reorg.ts';
import { dropSnapshotPartitions } from '../../pipeline/materialize/publish/snapshot-partitions.ts';
import { COMPACTED_TABLES, compactTables } from '../../pipeline/maintenance/compact-tables.ts';
import { clusterReport } from '../../pipeline/cli/status.command.ts';
import { registerReplicationLag } from '../../pipeline/metrics/replication-lag.ts';
import { recommendationRows } from '../fixtures/recommendation-rows.ts';
import { numberedTransaction } from '../fixtures/transactions.ts';
import { transactionRecord } from '../../shared/records/chain-activity.ts';
import { waitFor } from '../support/child-process.ts';
import { onNodeOf } from '../support/cluster-node.ts';

const DATABASE = 'sg_cluster';
const onNode = onNodeOf(DATABASE);
let dir: string;
let cluster: LocalCluster;
let config: Config;
let ch: ClickHouse;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-cluster-test-'));
  cluster = await startLocalCluster({ dir });
  config = parseConfig({
    CLICKHOUSE_URL: cluster.clickhouse[0]!.url,
    CLICKHOUSE_CLUSTER: cluster.name,
    CLICKHOUSE_DATABASE: DATABASE,
    REDIS_CLUSTER_NODES: cluster.redisClusterNodes,
  });
  await migrate(config);
  ch = createClickHouse(config);
}, 180_000);

afterAll(async () => {
  await ch?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const tableRow = z.object({ name: z.string(), engine: z.string() });
const countRow = z.object({ n: z.coerce.number() });

/** How many rows of a snapshot a node's own replica of recommendations holds. */
const rowsOf = (snapshotId: number) => (member: ClickHouseMember) =>
  onNode(member, (node) => node.query(sql`SELECT count() AS n FROM ${identifier('recommendations_local')} WHERE snapshot_id = ${snapshotId}`, countRow).then(([row]) => row!.n));

/**
 * The member of `shard` that leads the replication of recommendations_local, asked over the
 * client's node URLs; waits while the shard has none (an election after an earlier test's restart).
 */
async function recommendationsLeader(direct: ClickHouse, members: readonly ClickHouseMember[], shard: number): Promise<ClickHouseMember> {
  let leader: ClickHouseMember | undefined;
  await waitFor(
    async () => {
      const leaders = new Set((await replicationLeaders(direct.nodes, DATABASE, 'recommendations_local')).map((node) => node.address));
      leader = members.find((m) => m.shard === shard && leaders.has(new URL(m.url).host));
      return leader !== undefined;
    },
    30_000,
    `a replication leader on shard ${shard}`,
  );
  return leader!;
}

const localProfiles = (node: ClickHouse) =>
  node.query(sql`SELECT count() AS n FROM ${identifier('profiles_local')} FINAL`, countRow).then(([row]) => row!.n);

function profiles(from: number, count: number, updatedAt: number) {
  return Array.from({ length: count }, (_, i) => ({
    profile_id: `p${from + i}`,
    name: `Profile ${from + i}`,
    avatar: '',
    addresses: [],
    social_username: '',
    game_platform_id: '',
    updated_at: updatedAt,
    ingested_at: updatedAt,
  }));
}

describe('soulgraph on a local cluster', () => {
  it('creates every table on every node: sharded ones as Distributed over Replicated local tables', async () => {
    const perNode = await Promise.all(
      cluster.clickhouse.map((m) => onNode(m, (node) => node.query(sql`SELECT name, engine FROM system.tables WHERE database = ${DATABASE} ORDER BY name`, tableRow))),
    );
    for (const tables of perNode) expect(tables).toEqual(perNode[0]);
    const engine = new Map(perNode[0]!.map((t) => [t.name, t.engine]));
    expect(engine.get('profiles')).toBe('Distributed');
    expect(engine.get('profiles_local')).toBe('ReplicatedReplacingMergeTree');
    // A small table every node holds whole: one replicated table, no Distributed one.
    expect(engine.get('ranking_models')).toBe('ReplicatedReplacingMergeTree');
    expect(engine.has('ranking_models_local')).toBe(false);
    // The SQL ranking's working set, which migration 057 dropped, is gone from every node.
    expect([...engine.keys()].filter((t) => t.startsWith('mat_'))).toEqual([]);
  });

  it('shows rows inserted twice through a Distributed table once with FINAL, spread over both shards', async () => {
    await ch.insert('profiles', profiles(0, 200, 1_700_000_000));
    await ch.insert('profiles', profiles(0, 200, 1_700_000_001));
    // A synchronous Distributed insert lands on one replica of each shard; the other fetches it
    // soon after, and a read may go to either (docs/cluster.md).
    await awaitReplication(ch, ['profiles'], { timeoutMs: 30_000 });
    const [all] = await ch.query(sql`SELECT count() AS n, uniqExact(name) AS names FROM profiles FINAL`, z.object({ n: z.coerce.number(), names: z.coerce.number() }));
    expect(all).toEqual({ n: 200, names: 200 });
    const [shard1, shard2] = await Promise.all([onNode(cluster.clickhouse[0]!, localProfiles), onNode(cluster.clickhouse[2]!, localProfiles)]);
    expect(shard1! + shard2!).toBe(200);
    expect(Math.min(shard1!, shard2!)).toBeGreaterThan(50);
  });

  it('writes through a shard that lost a replica, and the replica catches up once it is back', async () => {
    const [, , healthy, victim] = cluster.clickhouse;
    await cluster.kill(victim!);
    await ch.insert('profiles', profiles(200, 200, 1_700_000_002));
    // A read right after the insert may meet a replica that has not fetched it yet: the live ones catch up first.
    await awaitReplication(ch, ['profiles'], { timeoutMs: 30_000 });
    const [all] = await ch.query(sql`SELECT count() AS n FROM profiles FINAL`, countRow);
    expect(all!.n).toBe(400);
    await cluster.restart(victim!);
    // Just restarted, the replica may not have read the replication log yet, so that
    // awaitReplication sees nothing to wait for: the test waits for the rows themselves.
    const counts = () => Promise.all([onNode(victim!, localProfiles), onNode(healthy!, localProfiles)]);
    await waitFor(async () => new Set(await counts()).size === 1, 30_000, 'the restarted replica to catch up');
    const [fromVictim, fromHealthy] = await counts();
    expect(fromVictim).toBe(fromHealthy);
  }, 90_000);

  it("drops a snapshot's partitions of a sharded table on every shard, and only them", async () => {
    const rows = [1, 2].flatMap((snapshot) => recommendationRows(snapshot, 200, 2));
    await ch.insert('recommendations', rows);
    const dropped = await dropPartitionsWhere(ch, ['recommendations'], sql`(partition_id = '1' OR startsWith(partition_id, '1-'))`);
    expect(dropped).toBe(2);
    await awaitReplication(ch, ['recommendations'], { timeoutMs: 30_000 });
    const left = await ch.query(sql`SELECT snapshot_id AS n FROM recommendations GROUP BY snapshot_id ORDER BY snapshot_id`, countRow);
    expect(left).toEqual([{ n: 2 }]);
    const perNode = await Promise.all(
      cluster.clickhouse.map((m) => onNode(m, (node) => node.query(sql`SELECT count() AS n FROM recommendations_local WHERE snapshot_id = 1`, countRow))),
    );
    expect(perNode.map(([row]) => row!.n)).toEqual([0, 0, 0, 0]);
  }, 60_000);

  it("writes a retried bucket's rows again once its partition is dropped, where the same rows without the drop are taken for a duplicate", async () => {
    // A retried bucket or tags step drops what the failed attempt wrote and inserts the same
    // rows again (snapshot-partitions.ts). Replicated tables skip a block they have seen
    // (insert_deduplicate): 18.16 forgets the blocks of a dropped partition, else the retry would write nothing.
    const count = async (table: string) => (await ch.query(sql`SELECT count() AS n FROM ${identifier(table)} WHERE snapshot_id = 77`, countRow))[0]!.n;
    const lists = sql`INSERT INTO recommendations (snapshot_id, bucket, profile_id, rank, candidate_id, score) SELECT 77, 0, toString(number), 1, toString(number + 1), 1 FROM numbers(500)`;
    const tags = sql`INSERT INTO profile_tags (snapshot_id, profile_id, tags) SELECT 77, toString(number), ['DAO'] FROM numbers(500)`;
    const both = async () => {
      await Promise.all([ch.command(lists), ch.command(tags)]);
      await awaitReplication(ch, ['recommendations', 'profile_tags'], { timeoutMs: 30_000 });
      return [await count('recommendations'), await count('profile_tags')];
    };
    expect(await both()).toEqual([500, 500]);
    expect(await both()).toEqual([500, 500]);
    for (const attempt of [2, 3]) {
      await dropSnapshotPartitions(ch, ['recommendations', 'profile_tags'], 77);
      await awaitReplication(ch, ['recommendations', 'profile_tags'], { timeoutMs: 30_000 });
      expect([await count('recommendations'), await count('profile_tags')], `attempt ${attempt}`).toEqual([0, 0]);
      expect(await both(), `attempt ${attempt}`).toEqual([500, 500]);
    }
    await dropSnapshotPartitions(ch, ['recommendations', 'profile_tags'], 77);
  }, 60_000);

  it("rolls a reorg back on every shard and replica: the orphaned blocks' rows are gone, the others kept", async () => {
    // 200 transactions in 20 blocks, 10 a block, as the transactions kind stores them.
    const transactions = Array.from({ length: 200 }, (_, n) => ({
      ...transactionRecord.parse({ ...numberedTransaction(n, 'c'), blockNumber: 1_000 + (n % 20) }),
      ingested_at: 1_700_000_000,
    }));
    await ch.insert('transactions', transactions);
    await ch.insert('chain_blocks', Array.from({ length: 20 }, (_, i) => ({ chain_id: 1, number: 1_000 + i, hash: `0x${i}`, parent_hash: '', time: 1_700_000_000, tx_count: 10, ingested_at: 1_700_000_000 })));
    await awaitReplication(ch, ['transactions', 'chain_blocks'], { timeoutMs: 30_000 });

    await deleteBlockSpan(ch, 1, { from: 1_015 });

    const perNode = await Promise.all(
      cluster.clickhouse.map((m) =>
        onNode(m, (node) => node.query(sql`SELECT count() AS n FROM transactions_local WHERE block_number >= 1015`, countRow).then(([row]) => row!.n)),
      ),
    );
    expect(perNode).toEqual([0, 0, 0, 0]);
    const [kept] = await ch.query(sql`SELECT count() AS n FROM transactions WHERE block_number < 1015`, countRow);
    expect(kept!.n).toBe(150);
    const [blocks] = await ch.query(sql`SELECT count() AS n FROM chain_blocks FINAL`, countRow);
    expect(blocks!.n).toBe(15);
    // Longer than waitForMutations' own 120 s, so that a slow mutation fails there, saying which.
  }, 150_000);

  it('spreads the serving copy over the Redis masters, and answers a page from it as one Redis server does', async () => {
    const standalone = parseConfig({ REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: `sg-cluster-${process.pid}` });
    const serving = [config, standalone].map((c) => ({ config: c, writer: createServingWriter(c), reader: createRedis(servingRedisConnection(c, 'producer')) }));
    const ids = Array.from({ length: 300 }, (_, i) => `s${i}`);
    const at = (i: number) => ids[i % ids.length]!;
    try {
      for (const { writer } of serving) {
        await writer.profiles(ids.map((id, i) => ({ profile_id: id, name: `Served ${i}`, avatar: '', updated_at: 10 })));
        // Hashes of many followers in one call: on a cluster they are in many slots.
        await writer.follows(
          ids.flatMap((id, i) => [
            { follower_profile_id: id, followee_profile_id: at(i + 2), updated_at: 10, active: 1 },
            { follower_profile_id: id, followee_profile_id: at(i + 1), updated_at: 10, active: 0 },
          ]),
        );
        await writer.lists(
          ids.map((id, i) => ({ snapshotId: 7, profileId: id, text: encodeServedList({ m: 0, e: [[at(i + 1), 4, 0, at(i + 5)], [at(i + 2), 1, 0, ''], [at(i + 3), 1, 0, '']] }) })),
        );
      }
      const [onCluster, onOneServer] = serving.map(({ config: c, reader }) => createServedLists(reader, c));
      const page = await onCluster!.page(7, 's0', 0, 2);
      expect(page).toEqual(await onOneServer!.page(7, 's0', 0, 2));
      expect(page).toMatchObject({ hasNext: true, stored: 3, following: new Set(['s2']) });
      expect(page!.rows.map((r) => r.candidate_id)).toEqual(['s1', 's2']);
      expect(Object.fromEntries(page!.profiles)).toEqual({ s1: { name: 'Served 1', avatar: '' }, s2: { name: 'Served 2', avatar: '' }, s5: { name: 'Served 5', avatar: '' } });

      // Every master holds some of the lists (300 keys over 3 masters), and each saves on request.
      const masters = (serving[0]!.reader as Cluster).nodes('master');
      const listKeys = (node: Redis) => node.keys(`${servingKeys(config).list(7, '')}*`).then((keys) => keys.length);
      const perMaster = await Promise.all(masters.map(listKeys));
      expect(perMaster.length).toBe(3);
      expect(perMaster.every((n) => n > 0)).toBe(true);
      expect(perMaster.reduce((a, b) => a + b)).toBe(ids.length);
      // So do the profiles mirror's hashes: every summary in the hash of its part, none in one big hash.
      const profileFields = async (node: Redis) => {
        const hashes = await node.keys(`${servingKeys(config).profiles('s0').replace(/\d+$/, '')}*`);
        return (await Promise.all(hashes.map((h) => node.hlen(h)))).reduce((a, b) => a + b, 0);
      };
      const summariesPerMaster = await Promise.all(masters.map(profileFields));
      expect(summariesPerMaster.every((n) => n > 0 && n < ids.length)).toBe(true);
      expect(summariesPerMaster.reduce((a, b) => a + b)).toBe(ids.length);
      const saves = (node: Redis) => node.info('persistence').then((info) => Number(/^rdb_saves:(\d+)/m.exec(info)?.[1]));
      const before = await Promise.all(masters.map(saves));
      await serving[0]!.writer.snapshot();
      await expect.poll(async () => (await Promise.all(masters.map(saves))).every((n, i) => n > before[i]!), { timeout: 20_000 }).toBe(true);
    } finally {
      await Promise.all(serving.map(async ({ writer, reader }) => Promise.all([writer.close(), reader.quit()])));
      const cleanup = new Redis(standalone.REDIS_URL!);
      const keys = await cleanup.keys(`${standalone.QUEUE_PREFIX}:*`);
      if (keys.length > 0) await cleanup.del(...keys);
      await cleanup.quit();
    }
  }, 60_000);

  it('waits for no replica of a table nothing was ever written to', async () => {
    const started = Date.now();
    await awaitReplication(ch, ['sbt_issuers', 'ingest_rejects'], { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('compacts each shard once, on its node from CLICKHOUSE_NODE_URLS, and refuses to guess without them', async () => {
    await ch.insert('profiles', profiles(7000, 40, 1));
    await ch.insert('profiles', profiles(7000, 40, 2));
    const done: string[] = [];
    const withNodes = createClickHouse({ ...config, CLICKHOUSE_NODE_URLS: cluster.clickhouse.map((m) => m.url) });
    await compactTables(withNodes, (table) => done.push(table)).finally(() => withNodes.close());
    expect(done).toEqual(COMPACTED_TABLES);
    await awaitReplication(ch, ['profiles']);
    // Without FINAL: every replica holds each profile once, the newer version.
    const versions = z.object({ n: z.coerce.number(), profiles: z.coerce.number(), newest: z.coerce.number() });
    for (const member of cluster.clickhouse) {
      const [row] = await onNode(member, (node) =>
        node.query(sql`SELECT count() AS n, uniqExact(profile_id) AS profiles, toUInt32(min(updated_at)) AS newest FROM ${identifier('profiles_local')} WHERE toUInt32OrZero(substring(profile_id, 2)) BETWEEN 7000 AND 7039`, versions),
      );
      expect(row!.n, member.name).toBe(row!.profiles);
      expect(row!.newest, member.name).toBe(2);
    }
    // Once per shard: on one node of each (its replication leader), none on the others.
    const optimized = await Promise.all(
      cluster.clickhouse.map((member) =>
        onNode(member, async (node) => {
          await node.command(sql`SYSTEM FLUSH LOGS`);
          // A node that logged no statement has no query_log table.
          const [logged] = await node.query(sql`SELECT count() AS n FROM system.tables WHERE database = 'system' AND name = 'query_log'`, countRow);
          if (logged!.n === 0) return { shard: member.shard, n: 0 };
          const [row] = await node.query(
            sql`SELECT count() AS n FROM system.query_log WHERE type = 2 AND startsWith(query, 'OPTIMIZE TABLE') AND position(query, 'profiles_local') > 0`,
            countRow,
          );
          return { shard: member.shard, n: row!.n };
        }),
      ),
    );
    for (const shard of [1, 2]) expect(optimized.filter((o) => o.shard === shard).map((o) => o.n).sort()).toEqual([0, 1]);
    await expect(compactTables(ch)).rejects.toThrow(/set CLICKHOUSE_NODE_URLS/);
  }, 60_000);

  it("moves the queues to a replica when their Redis master dies, and every job added before or after completes", async () => {
    const slot = Number(/:(\d+)/.exec(await redisCommand(cluster.redis[0]!.url, `CLUSTER KEYSLOT ${config.QUEUE_PREFIX}`))?.[1]);
    const master = await cluster.redisMasterOf(slot);
    const queue = new Queue('cluster-test', { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
    const worker = new Worker('cluster-test', async (job) => job.data.i, {
      connection: redisConnection(config, 'worker'),
      prefix: config.QUEUE_PREFIX,
      // A job running when the master dies keeps its lock on the new master until the lock
      // expires; a short lock keeps the test short (workers use INGEST_LOCK_MS, 30 s).
      lockDuration: 4_000,
      stalledInterval: 2_000,
    });
    worker.on('error', () => {});
    try {
      const ids: string[] = [];
      const add = async (i: number) => ids.push((await queue.add('job', { i })).id!);
      for (let i = 0; i < 20; i++) await add(i);
      // Redis replicates asynchronously: a write its replica has not acknowledged dies with the
      // master (docs/cluster.md). The jobs added before the kill are replicated first.
      await redisCommand(master.url, 'WAIT 1 5000');
      await cluster.kill(master);
      for (let i = 20; i < 40; i++) await add(i);
      await expect.poll(async () => (await Promise.all(ids.map((id) => queue.getJobState(id)))).filter((s) => s === 'completed').length, { timeout: 45_000, interval: 500 }).toBe(40);
      expect(await cluster.redisMasterOf(slot)).not.toBe(master);
    } finally {
      await Promise.all([worker.close(), queue.close()]);
      await cluster.restart(master);
    }
  }, 90_000);

  it("asks each node directly over CLICKHOUSE_NODE_URLS with the service's own credentials: replication waits and a partition drop, a dead node left out of a wait, a refusal loud", async () => {
    const nodeUrls = cluster.clickhouse.map((m) => m.url);
    // The credentials travel to every node: a wrong password is refused there, and said so.
    const refused = createClickHouse({ ...config, CLICKHOUSE_PASSWORD: 'not-the-password', CLICKHOUSE_NODE_URLS: nodeUrls });
    await expect(awaitReplication(refused, ['profiles'], { timeoutMs: 5_000 })).rejects.toThrow(/password|Authentication|Code: (193|516)/i);
    await refused.close();

    const direct = createClickHouse({ ...config, CLICKHOUSE_NODE_URLS: nodeUrls });
    // The replica killed below is one that does not lead its shard's replication: 18.16 sends a
    // partition drop on to the leader, so with a dead leader the drop fails (until ZooKeeper
    // elects another; the job's retry) instead of leaving the dead node out.
    const leader = await recommendationsLeader(direct, cluster.clickhouse, 2);
    const victim = cluster.clickhouse.find((m) => m.shard === 2 && m !== leader)!;
    try {
      // Once the wait returns, 40 new rows are on both replicas of their shard: 80 over the
      // nodes, at once. Twelve times, right after each insert, where a wait that trusted one
      // look at system.replicas used to return early (replication-wait.ts, settled).
      for (const snapshotId of [80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91]) {
        await direct.insert('recommendations', recommendationRows(snapshotId, 40, 1));
        await awaitReplication(direct, ['recommendations'], { timeoutMs: 30_000 });
        expect((await Promise.all(cluster.clickhouse.map(rowsOf(snapshotId)))).reduce((a, b) => a + b), `snapshot ${snapshotId}`).toBe(80);
      }
      expect(await dropPartitionsWhere(direct, ['recommendations'], sql`partition_id IN ('80-0', '81-0', '82-0', '83-0', '84-0', '85-0', '86-0', '87-0', '88-0', '89-0', '90-0')`)).toBe(11);
      const left = rowsOf(91);
      expect(await dropPartitionsWhere(direct, ['recommendations'], sql`partition_id = '91-0'`)).toBe(1);
      await waitFor(async () => (await Promise.all(cluster.clickhouse.map(left))).every((n) => n === 0), 30_000, 'the partition gone from every node');
      // A DELETE goes to one replica of each shard, which logs it for the other: one mutation
      // per shard, not one per node (each would be applied on both replicas).
      await direct.insert('recommendations', recommendationRows(93, 40, 1));
      await awaitReplication(direct, ['recommendations'], { timeoutMs: 30_000 });
      await alterOnEveryShard(direct, 'recommendations', (target) => sql`ALTER TABLE ${target} DELETE WHERE snapshot_id = 93`);
      const mutations = (member: (typeof cluster.clickhouse)[number]) =>
        onNode(member, (node) =>
          node.query(sql`SELECT count() AS n FROM system.mutations WHERE table = 'recommendations_local' AND position(command, 'snapshot_id = 93') > 0`, countRow).then(([row]) => row!.n),
        );
      await waitFor(async () => (await Promise.all(cluster.clickhouse.map(mutations))).every((n) => n === 1), 30_000, 'one mutation on every node');
      await waitFor(async () => (await Promise.all(cluster.clickhouse.map(rowsOf(93)))).every((n) => n === 0), 30_000, 'the rows gone from every node');
      // Node URLs that leave out a shard cannot reach its rows: refused, not done in part.
      const oneShard = createClickHouse({ ...config, CLICKHOUSE_NODE_URLS: cluster.clickhouse.filter((m) => m.shard === 1).map((m) => m.url) });
      await expect(alterOnEveryShard(oneShard, 'recommendations', (target) => sql`ALTER TABLE ${target} DELETE WHERE snapshot_id = 93`)).rejects.toThrow(
        /only 1 of cluster \w+'s 2 shards have a node in CLICKHOUSE_NODE_URLS that answers/,
      );
      await oneShard.close();
      // A node that cannot be reached is left out of a wait, and a drop ON CLUSTER does not
      // wait for it (18.16 would, for distributed_ddl_task_timeout: 180 s).
      await cluster.kill(victim);
      await direct.insert('recommendations', recommendationRows(92, 40, 1));
      await awaitReplication(direct, ['recommendations'], { timeoutMs: 30_000 });
      expect(await dropPartitionsWhere(direct, ['recommendations'], sql`partition_id = '92-0'`)).toBe(1);
      await awaitReplication(direct, ['recommendations'], { timeoutMs: 30_000 });
      const live = cluster.clickhouse.filter((m) => m !== victim);
      await waitFor(async () => (await Promise.all(live.map(rowsOf(92)))).every((n) => n === 0), 30_000, 'the partition gone from every live node');
    } finally {
      await direct.close();
      await cluster.restart(victim);
    }
  }, 90_000);

  // Last: a replica that rejoins can take the leadership of its tables, and an ALTER sent
  // meanwhile fails with "Leader was suddenly changed" (seen when this ran before the
  // partition drop).
  it('shows in soulgraph status each node with its replication lag, and a dead one as unreachable', async () => {
    const victim = cluster.clickhouse[1]!;
    const direct = createClickHouse({ ...config, CLICKHOUSE_NODE_URLS: cluster.clickhouse.map((m) => m.url) });
    await cluster.kill(victim);
    const report = (await clusterReport(ch)).join('\n');
    const directReport = (await clusterReport(direct).finally(() => direct.close())).join('\n');
    const registry = new Registry();
    registerReplicationLag(registry, ch);
    const scraped = await registry.metrics();
    await cluster.restart(victim);
    // The workers' /metrics says the same, for the alerts (docs/operations.md).
    for (const member of cluster.clickhouse) {
      const labels = `node="127.0.0.1:${member.ports.tcpPort}",shard="${member.shard}",replica="${member.replica}"`;
      expect(scraped, member.name).toContain(`soulgraph_clickhouse_node_up{${labels}} ${member === victim ? 0 : 1}`);
      expect(scraped.includes(`soulgraph_clickhouse_replication_behind{${labels}} `), member.name).toBe(member !== victim);
    }
    // Restarting a member that is running (a cleanup after a test that failed before its kill) leaves it be.
    const running = victim.service.pid;
    await cluster.restart(victim);
    expect(victim.service.pid).toBe(running);
    expect(report).toContain(`cluster ${cluster.name}:`);
    for (const member of cluster.clickhouse) {
      const line = report.split('\n').find((l) => l.startsWith(`127.0.0.1:${member.ports.tcpPort} `));
      expect(line, member.name).toMatch(member === victim ? /\sunreachable$/ : /\s\d+$/);
      expect(line, member.name).toMatch(new RegExp(`\\s${member.shard}\\s+${member.replica}\\s`));
    }
    // With CLICKHOUSE_NODE_URLS each node is asked directly and names itself by its macros.
    for (const member of cluster.clickhouse) {
      const line = directReport.split('\n').find((l) => l.startsWith(`${new URL(member.url).host} `));
      expect(line, member.name).toMatch(member === victim ? /\s-\s+-\s+unreachable$/ : new RegExp(`\\s${member.shard}\\s+${member.name}\\s+\\d+$`));
    }
  }, 60_000);

  // After the status test: the leader killed here rejoins at the end (see above).
  it("drops a partition while its shard's replication leader is dead, once ZooKeeper has made another replica the leader", async () => {
    const direct = createClickHouse({ ...config, CLICKHOUSE_NODE_URLS: cluster.clickhouse.map((m) => m.url) });
    const rowsOn = rowsOf(95);
    const leader = await recommendationsLeader(direct, cluster.clickhouse, 2);
    const survivor = cluster.clickhouse.find((m) => m.shard === 2 && m !== leader)!;
    try {
      await direct.insert('recommendations', recommendationRows(95, 40, 1));
      await awaitReplication(direct, ['recommendations'], { timeoutMs: 30_000 });
      expect(await rowsOn(survivor)).toBeGreaterThan(0);
      await cluster.kill(leader);
      // The survivor sends the drop on to the dead leader, in vain, until its ZooKeeper session
      // ends (6 s here) and the survivor leads: then the drop goes through, and the run goes on.
      expect(await dropPartitionsWhere(direct, ['recommendations'], sql`partition_id = '95-0'`)).toBe(1);
      await waitFor(async () => (await rowsOn(survivor)) === 0, 30_000, "the partition gone from the shard's survivor");
    } finally {
      await direct.close();
      await cluster.restart(leader);
    }
  }, 120_000);
});
