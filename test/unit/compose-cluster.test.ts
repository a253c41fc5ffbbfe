/**
 * docker-compose.cluster.yml, which no machine here can start (no Docker engine): its
 * ClickHouse members mount the config.d files that the local cluster's code writes
 * (test/cluster/compose-cluster.ts), and its services name each other consistently.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../shared/config.ts';
import { COMPOSE_CLUSTER_NAME, COMPOSE_MEMBERS, composeMemberConfigs } from '../cluster/compose-cluster.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Service {
  hostname?: string;
  command?: string | string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
}
const compose = parseYaml(read('docker-compose.cluster.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const redisNodes = Object.keys(services).filter((name) => /^redis-\d+$/.test(name));

describe('docker-compose.cluster.yml', () => {
  it("mounts in each ClickHouse member the config the local cluster's code writes for it", () => {
    for (const [path, text] of composeMemberConfigs()) expect(read(path), path).toBe(text);
    for (const member of COMPOSE_MEMBERS) {
      const service = services[member.host];
      expect(service, member.host).toBeDefined();
      expect(service!.hostname).toBe(member.host);
      expect(service!.volumes).toContain(`./deploy/cluster/clickhouse/${member.name}.xml:/etc/clickhouse-server/config.d/cluster.xml:ro`);
    }
    expect(Object.keys(services).filter((name) => name.startsWith('clickhouse-')).sort()).toEqual(COMPOSE_MEMBERS.map((m) => m.host).sort());
  });

  it('points every soulgraph service at the cluster, with settings soulgraph accepts', () => {
    for (const name of ['migrate', 'workers', 'scheduler', 'api']) {
      // Compose's ${VAR:-default}, as with no .env.
      const env = Object.fromEntries(Object.entries(services[name]!.environment!).map(([k, v]) => [k, String(v).replace(/\$\{\w+:-([^}]*)\}/g, '$1')]));
      const config = parseConfig(env);
      expect(config.CLICKHOUSE_CLUSTER, name).toBe(COMPOSE_CLUSTER_NAME);
      expect(COMPOSE_MEMBERS.map((m) => `http://${m.host}:8123`)).toContain(config.CLICKHOUSE_URL);
      expect(config.SERVING_REDIS_URL, `${name}: the serving copy stays on the cluster`).toBeUndefined();
      for (const node of config.REDIS_CLUSTER_NODES) expect(redisNodes).toContain(node.host);
      expect(config.CLICKHOUSE_NODE_URLS, `${name}: buckets spread over every member`).toEqual(COMPOSE_MEMBERS.map((m) => `http://${m.host}:8123`));
    }
  });

  it('makes one Redis Cluster of every Redis node, which runs in cluster mode', () => {
    expect(redisNodes).toHaveLength(6);
    for (const name of redisNodes) expect(String(services[name]!.command)).toContain('--cluster-enabled yes');
    const create = [services['redis-cluster-create']!.command].flat().join(' ');
    expect(create).toContain(`for n in ${redisNodes.map((n) => n.slice('redis-'.length)).join(' ')};`);
    expect(create).toContain('--cluster-replicas 1');
    expect(Object.keys(services['redis-cluster-create']!.depends_on!).sort()).toEqual([...redisNodes].sort());
  });

  it('names only services it defines in depends_on', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) expect(services, `${name} -> ${dependency}`).toHaveProperty(dependency);
    }
  });
});
