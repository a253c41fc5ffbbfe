/**
 * Cluster mode by configuration (docs/cluster.md): CLICKHOUSE_CLUSTER and REDIS_CLUSTER_NODES.
 * npm run cluster:check runs it on a real cluster.
 */
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { partsTableName, partsTarget } from '../../shared/clickhouse/cluster-schema.ts';
import { parseConfig } from '../../shared/config.ts';
import { createRedis, redisConnection, servingRedisConnection } from '../../shared/redis.ts';
import { PROFILE_PARTS, profilesPart, servingKeys } from '../../shared/serving.ts';

describe('cluster settings', () => {
  it('runs on one server when neither is set', () => {
    const config = parseConfig({});
    expect(config.CLICKHOUSE_CLUSTER).toBe('');
    expect(config.REDIS_CLUSTER_NODES).toEqual([]);
    expect(config.QUEUE_PREFIX).toBe('soulgraph');
  });

  it('reads the Redis Cluster nodes as host:port pairs', () => {
    const config = parseConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, redis-b:7001' });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: 'redis-b', port: 7001 },
    ]);
  });

  it('refuses a node that is not host:port, naming the setting', () => {
    expect(() => parseConfig({ REDIS_CLUSTER_NODES: 'redis-a' })).toThrow(/Invalid setting REDIS_CLUSTER_NODES .*"redis-a" is not host:port/);
  });

  it('hash-tags the queue prefix on a Redis Cluster, so that each BullMQ script finds its keys in one slot', () => {
    expect(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000' }).QUEUE_PREFIX).toBe('{soulgraph}');
    expect(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000', QUEUE_PREFIX: 'acme' }).QUEUE_PREFIX).toBe('{acme}');
    expect(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000', QUEUE_PREFIX: '{acme}:prod' }).QUEUE_PREFIX).toBe('{acme}:prod');
  });

  it('reads every node of a ClickHouse cluster from CLICKHOUSE_NODE_URLS, and refuses them without the cluster or as anything but URLs', () => {
    const cluster = { CLICKHOUSE_URL: 'http://ch-1:8123', CLICKHOUSE_CLUSTER: 'soulgraph' };
    expect(parseConfig({ ...cluster, CLICKHOUSE_NODE_URLS: 'http://ch-1:8123, https://ch-2:8443' }).CLICKHOUSE_NODE_URLS).toEqual(['http://ch-1:8123', 'https://ch-2:8443']);
    expect(() => parseConfig({ CLICKHOUSE_NODE_URLS: 'http://ch-1:8123' })).toThrow(/Invalid setting CLICKHOUSE_NODE_URLS: .*needs CLICKHOUSE_CLUSTER/);
    expect(() => parseConfig({ ...cluster, CLICKHOUSE_NODE_URLS: 'ch-2:8123' })).toThrow(/Invalid setting CLICKHOUSE_NODE_URLS/);
  });

  it("keeps the serving copy on the Redis Cluster unless SERVING_REDIS_URL names a server of its own", () => {
    const onCluster = servingRedisConnection(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000' }), 'producer');
    expect(onCluster.clusterNodes).toEqual([{ host: 'r', port: 7000 }]);
    const apart = servingRedisConnection(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000', SERVING_REDIS_URL: 'redis://cache:6380' }), 'producer');
    expect(apart).toMatchObject({ host: 'cache', port: 6380 });
    expect(apart.clusterNodes).toBeUndefined();
  });

  it("splits the profiles mirror by profile id over PROFILE_PARTS hashes on a Redis Cluster, and keeps it one hash on one server", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `p_${i}`);
    const onCluster = servingKeys(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000' }));
    const hashes = new Map<string, number>();
    for (const id of ids) hashes.set(onCluster.profiles(id), (hashes.get(onCluster.profiles(id)) ?? 0) + 1);
    expect(hashes.size).toBe(PROFILE_PARTS);
    // Spread evenly: about 20 profiles each; none more than twice that.
    expect(Math.max(...hashes.values())).toBeLessThan((2 * ids.length) / PROFILE_PARTS);
    expect(onCluster.profiles('p_1')).toBe(onCluster.profiles('p_1'));
    expect(onCluster.profiles('p_1')).toMatch(/^soulgraph:serving:profiles:\d+$/);
    // FNV-1a 32 of 'a' is 0xe40c292c: the part a profile lands in is fixed across versions.
    expect(profilesPart('a')).toBe(0xe40c292c % PROFILE_PARTS);

    const oneServer = servingKeys(parseConfig({ REDIS_URL: 'redis://r:6379' }));
    expect(new Set(ids.map((id) => oneServer.profiles(id)))).toEqual(new Set(['soulgraph:serving:profiles']));
    const apart = servingKeys(parseConfig({ REDIS_CLUSTER_NODES: 'r:7000', SERVING_REDIS_URL: 'redis://cache:6380' }));
    expect(apart.profiles('p_1')).toBe('soulgraph:serving:profiles');
    // The re-sync state is named for the split: a copy kept as one hash before has none under
    // the split's name, so the next nightly run re-syncs every profile into the parts.
    expect(onCluster.mirrorSync).toBe(`soulgraph:serving:mirror-sync:parts-${PROFILE_PARTS}`);
    expect(oneServer.mirrorSync).toBe('soulgraph:serving:mirror-sync');
  });

  it('refuses a ClickHouse cluster name that is not a plain identifier', () => {
    const url = 'http://ch-1:8123';
    expect(parseConfig({ CLICKHOUSE_URL: url, CLICKHOUSE_CLUSTER: 'soulgraph_prod' }).CLICKHOUSE_CLUSTER).toBe('soulgraph_prod');
    expect(() => parseConfig({ CLICKHOUSE_URL: url, CLICKHOUSE_CLUSTER: 'a b' })).toThrow(/Invalid setting CLICKHOUSE_CLUSTER/);
  });

  it('refuses a ClickHouse cluster without the address of one of its nodes (the local stack is one server)', () => {
    expect(() => parseConfig({ CLICKHOUSE_CLUSTER: 'soulgraph' })).toThrow(/CLICKHOUSE_CLUSTER .*needs CLICKHOUSE_URL/);
  });
});

describe('Redis clients', () => {
  it('makes a Cluster client when the options name a cluster, and a plain one otherwise', async () => {
    const cluster = createRedis({ ...redisConnection(parseConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }), 'producer'), lazyConnect: true });
    const plain = createRedis({ ...redisConnection(parseConfig({ REDIS_URL: 'redis://127.0.0.1:6390' }), 'producer'), lazyConnect: true });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      expect(plain).toBeInstanceOf(Redis);
    } finally {
      cluster.disconnect();
      plain.disconnect();
    }
  });
});

describe('statements on a table’s parts', () => {
  const single = { database: 'sg' };
  const cluster = { database: 'sg', cluster: 'soulgraph' };

  it('name the table itself on one server', () => {
    expect(partsTarget(single, 'transactions').text).toBe('`transactions`');
    expect(partsTableName(single, 'recommendations')).toBe('recommendations');
  });

  it('name a sharded table’s local tables on every node of a cluster', () => {
    expect(partsTarget(cluster, 'transactions').text).toBe('`sg`.`transactions_local` ON CLUSTER `soulgraph`');
    expect(partsTableName(cluster, 'recommendations')).toBe('recommendations_local');
  });

  it('name a table replicated everywhere as it is: replication carries the change', () => {
    expect(partsTarget(cluster, 'mat_profiles').text).toBe('`mat_profiles`');
  });
});
