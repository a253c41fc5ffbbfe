/**
 * A real cluster on one machine, started by the project like the single-node local stack:
 * a standalone ZooKeeper, shards x replicas clickhouse-server processes (each with its own
 * folder and config: remote_servers, zookeeper, macros {shard} and {replica}, distributed DDL)
 * and a Redis Cluster (masters, each with its replicas, made one cluster by
 * `redis-cli --cluster create`). For `npm run cluster:check` and the cluster tests; a person
 * can start it with `soulgraph`-style URLs printed by scripts/cluster-up (see docs/cluster.md).
 *
 * Members can be killed (SIGKILL, as a crash) and started again on the same ports and data,
 * which is what the failure checks do.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { defaultSearchDirs, findClickHouseServer, findExecutable, findRedisServer, MissingBinaryError } from './binaries.ts';
import { startClickHouse, xmlText, type ClickHousePorts } from './clickhouse-server.ts';
import { freePorts } from './free-port.ts';
import { redisCommand, startRedis } from './redis-server.ts';
import { retryOnPortClash, type RunningService } from './running-service.ts';
import { findZooKeeper, startZooKeeper } from './zookeeper-server.ts';

const run = promisify(execFile);

export interface LocalClusterOptions {
  /** Folder for every member's config, data and logs; created if missing. */
  dir: string;
  /** Name of the ClickHouse cluster in remote_servers (what CLICKHOUSE_CLUSTER names). Default "soulgraph". */
  name?: string;
  shards?: number;
  replicas?: number;
  redisMasters?: number;
  /** Replicas of each Redis master (1 lets a master fail over). */
  redisReplicasPerMaster?: number;
  log?: (line: string) => void;
}

export interface ClickHouseMember {
  /** 1-based, as in the {shard} macro. */
  shard: number;
  replica: number;
  /** The {replica} macro: unique over the whole cluster (s1r2), so that tables replicated to every node can use it too. */
  name: string;
  url: string;
  ports: ClickHousePorts;
  /** The running process; replaced by restart(). */
  service: RunningService;
}

export interface RedisMember {
  port: number;
  url: string;
  service: RunningService;
}

export interface LocalCluster {
  name: string;
  zookeeper: RunningService;
  clickhouse: ClickHouseMember[];
  redis: RedisMember[];
  /** REDIS_CLUSTER_NODES for this cluster: host:port of every node, comma-separated. */
  redisClusterNodes: string;
  /** SIGKILL, as a crash or the OOM killer would; resolves once the process is gone. */
  kill(member: ClickHouseMember | RedisMember): Promise<void>;
  /** Starts a killed member again on the same ports and data; a member that was not killed is left running. */
  restart(member: ClickHouseMember | RedisMember): Promise<void>;
  /** The Redis master serving this slot now, as CLUSTER NODES reports it from any live node. */
  redisMasterOf(slot: number): Promise<RedisMember>;
  /** Stops every member; idempotent. */
  stop(): Promise<void>;
}

/** Fails before anything starts when a binary is missing, with the command that installs it. */
export function checkClusterBinaries(): void {
  findClickHouseServer();
  findRedisServer();
  findZooKeeper();
  if (!findExecutable('redis-cli', defaultSearchDirs())) throw new MissingBinaryError('redis-cli not found: apt-get install -y redis-tools');
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  checkClusterBinaries();
  // Ports are chosen before the servers start (each one's config names the others'): when
  // another process takes one first, the whole cluster starts again on fresh ones.
  let attempt = 0;
  return retryOnPortClash(() => startOnce(options, attempt++));
}

async function startOnce(options: LocalClusterOptions, attempt: number): Promise<LocalCluster> {
  const dir = join(resolve(options.dir), `attempt-${attempt}`);
  const name = options.name ?? 'soulgraph';
  const log = options.log ?? (() => {});
  const started: RunningService[] = [];
  try {
    const zookeeper = await startZooKeeper({ dir: join(dir, 'zookeeper'), log });
    started.push(zookeeper);
    const zooKeeperPort = Number(new URL(zookeeper.url).port);
    const layout = await clickHouseLayout(options.shards ?? 2, options.replicas ?? 2);
    const addresses = layout.map((m): MemberAddress => ({ shard: m.shard, replica: m.replica, name: m.name, host: '127.0.0.1', tcpPort: m.ports.tcpPort }));
    const clickhouse = await Promise.all(
      layout.map(async (member, i) => {
        const service = await startClickHouse({
          dir: join(dir, `clickhouse-${member.name}`),
          ports: member.ports,
          extraConfigXml: clusterMemberConfigXml(name, addresses, addresses[i]!, { host: '127.0.0.1', port: zooKeeperPort }),
          log,
        });
        started.push(service);
        return { ...member, url: service.url, service };
      }),
    );
    const redis = await startRedisCluster(join(dir, 'redis'), options.redisMasters ?? 3, options.redisReplicasPerMaster ?? 1, log, started);
    return localCluster(name, zookeeper, clickhouse, redis);
  } catch (error) {
    await Promise.all(started.map((service) => service.stop()));
    throw error;
  }
}

async function clickHouseLayout(shards: number, replicas: number): Promise<Omit<ClickHouseMember, 'url' | 'service'>[]> {
  // One call for every port, so that no two members are handed the same one.
  const ports = await freePorts(shards * replicas * 3);
  const layout: Omit<ClickHouseMember, 'url' | 'service'>[] = [];
  for (let shard = 1; shard <= shards; shard++) {
    for (let replica = 1; replica <= replicas; replica++) {
      const [httpPort, tcpPort, interserverPort] = ports.splice(0, 3) as [number, number, number];
      layout.push({ shard, replica, name: `s${shard}r${replica}`, ports: { httpPort, tcpPort, interserverPort } });
    }
  }
  return layout;
}

/** A ClickHouse member as the cluster's configs name it. */
export interface MemberAddress {
  shard: number;
  replica: number;
  /** The {replica} macro (s1r2). */
  name: string;
  host: string;
  tcpPort: number;
}

/**
 * What makes one server a member: the cluster's shards and replicas (internal_replication:
 * a Distributed table writes each block to one replica and replication copies it), ZooKeeper,
 * its macros, and the queue of ON CLUSTER statements. The local cluster's members get it
 * inside their config; docker-compose.cluster.yml's, as config.d files written from it
 * (test/cluster/compose-cluster.ts).
 */
export function clusterMemberConfigXml(name: string, members: readonly MemberAddress[], member: MemberAddress, zooKeeper: { host: string; port: number }): string {
  const shards = [...new Set(members.map((m) => m.shard))].map((shard) => {
    const replicas = members
      .filter((m) => m.shard === shard)
      .map((m) => `\n                <replica><host>${xmlText(m.host)}</host><port>${m.tcpPort}</port></replica>`)
      .join('');
    return `\n            <shard>\n                <internal_replication>true</internal_replication>${replicas}\n            </shard>`;
  });
  return `
    <remote_servers>
        <${xmlText(name)}>${shards.join('')}
        </${xmlText(name)}>
    </remote_servers>
    <zookeeper>
        <node><host>${xmlText(zooKeeper.host)}</host><port>${zooKeeper.port}</port></node>
        <session_timeout_ms>6000</session_timeout_ms>
    </zookeeper>
    <macros>
        <shard>${member.shard}</shard>
        <replica>${xmlText(member.name)}</replica>
    </macros>
    <distributed_ddl>
        <path>/clickhouse/task_queue/ddl</path>
    </distributed_ddl>`;
}

async function startRedisCluster(
  dir: string,
  masters: number,
  replicasPerMaster: number,
  log: (line: string) => void,
  started: RunningService[],
): Promise<RedisMember[]> {
  const ports = await freePorts(masters * (1 + replicasPerMaster));
  const members = await Promise.all(
    ports.map(async (port) => {
      const service = await startRedis({ dir: join(dir, String(port)), port, log, extraArgs: redisClusterArgs() });
      started.push(service);
      return { port, url: service.url, service };
    }),
  );
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'], {
    timeout: 60_000,
  });
  await waitForClusterState(members);
  log(`redis cluster of ${masters} masters x ${1 + replicasPerMaster} on ports ${ports.join(', ')}`);
  return members;
}

function redisClusterArgs(): string[] {
  return [
    '--cluster-enabled', 'yes',
    '--cluster-config-file', 'nodes.conf',
    // A dead master is failed over after 2 s instead of 15 s.
    '--cluster-node-timeout', '2000',
    // A replica takes over however long ago it last heard from its master: with the short
    // timeout above, 7.0 otherwise judged a replica stale a few seconds after the kill and
    // left the slots down (measured: "Disconnected from master for longer than allowed").
    '--cluster-replica-validity-factor', '0',
    // Replicas get their first copy at once, not after the default 5 s wait for more replicas.
    '--repl-diskless-sync-delay', '0',
  ];
}

/**
 * Until every node reports cluster_state:ok with all 16384 slots served, and every replica
 * holds its master's copy (master_link_status:up): before that, a write acknowledged by a
 * master that dies is lost with it.
 */
async function waitForClusterState(members: RedisMember[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      members.map(async (m) => (await redisCommand(m.url, 'CLUSTER INFO').catch(() => '')) + (await redisCommand(m.url, 'INFO replication').catch(() => ''))),
    );
    const ok = (s: string) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s) && (/role:master/.test(s) || /master_link_status:up/.test(s));
    if (states.every(ok)) return;
    if (Date.now() > deadline) throw new Error(`redis cluster not ok after ${timeoutMs / 1000} s:\n${states.join('\n')}`);
    await sleep(200);
  }
}

function localCluster(name: string, zookeeper: RunningService, clickhouse: ClickHouseMember[], redis: RedisMember[]): LocalCluster {
  let stopping: Promise<void> | undefined;
  const killed = new Set<ClickHouseMember | RedisMember>();
  const cluster: LocalCluster = {
    name,
    zookeeper,
    clickhouse,
    redis,
    redisClusterNodes: redis.map((m) => `127.0.0.1:${m.port}`).join(','),
    async kill(member) {
      killed.add(member);
      process.kill(member.service.pid, 'SIGKILL');
      await member.service.exited;
    },
    async restart(member) {
      // A test's cleanup restarts what it killed, whether or not it got as far as the kill: a
      // second server on a running member's ports and data would outlive stop().
      if (!killed.delete(member)) return;
      const restart = member.service.restart;
      if (!restart) throw new Error(`${member.url} cannot be restarted`);
      member.service = await restart();
    },
    async redisMasterOf(slot) {
      for (const member of redis) {
        const nodes = await redisCommand(member.url, 'CLUSTER NODES').catch(() => '');
        const master = clusterNodesMasterOf(nodes, slot);
        const found = master && redis.find((m) => m.port === master);
        if (found) return found;
      }
      throw new Error(`no live redis node knows the master of slot ${slot}`);
    },
    stop: () =>
      (stopping ??= (async () => {
        await Promise.all([...clickhouse, ...redis].map((m) => m.service.stop()));
        await zookeeper.stop();
      })()),
  };
  return cluster;
}

/** Port of the connected master whose slot ranges include `slot`, from a CLUSTER NODES reply. */
export function clusterNodesMasterOf(reply: string, slot: number): number | undefined {
  for (const line of reply.split('\n')) {
    const fields = line.trim().split(' ');
    if (fields.length < 9 || !fields[2]!.includes('master') || fields[2]!.includes('fail') || fields[7] !== 'connected') continue;
    const port = Number(/:(\d+)@/.exec(fields[1]!)?.[1]);
    for (const range of fields.slice(8)) {
      const [from, to] = range.split('-').map(Number);
      if (from !== undefined && slot >= from && slot <= (to ?? from)) return port;
    }
  }
  return undefined;
}
