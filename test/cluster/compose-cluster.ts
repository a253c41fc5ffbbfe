/**
 * docker-compose.cluster.yml's ClickHouse members: the cluster the compose file starts (2
 * shards x 2 replicas, named as its services are) and the config.d file each member mounts,
 * written by the code that configures `npm run cluster:check`'s local cluster
 * (shared/local-stack/local-cluster.ts), so that the two clusters cannot drift apart.
 * test/unit/compose-cluster.test.ts checks the files in deploy/cluster/ against it; after a
 * change, write them again with
 *
 *   node --import tsx test/cluster/compose-cluster.ts
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { clusterMemberConfigXml, type MemberAddress } from '../../shared/local-stack/local-cluster.ts';

export const COMPOSE_CLUSTER_NAME = 'soulgraph';
export const COMPOSE_SHARDS = 2;
export const COMPOSE_REPLICAS = 2;

/** Every member, as the compose file names its service and host. */
export const COMPOSE_MEMBERS: MemberAddress[] = Array.from({ length: COMPOSE_SHARDS * COMPOSE_REPLICAS }, (_, i) => {
  const [shard, replica] = [Math.floor(i / COMPOSE_REPLICAS) + 1, (i % COMPOSE_REPLICAS) + 1];
  return { shard, replica, name: `s${shard}r${replica}`, host: `clickhouse-s${shard}r${replica}`, tcpPort: 9000 };
});

/** The config.d file of each member, by its path in the repository. */
export function composeMemberConfigs(): Map<string, string> {
  return new Map(
    COMPOSE_MEMBERS.map((member) => [
      `deploy/cluster/clickhouse/${member.name}.xml`,
      `<?xml version="1.0"?>
<!-- Written by test/cluster/compose-cluster.ts for docker-compose.cluster.yml: do not edit. -->
<clickhouse>${clusterMemberConfigXml(COMPOSE_CLUSTER_NAME, COMPOSE_MEMBERS, member, { host: 'zookeeper', port: 2181 })}
</clickhouse>
`,
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('../../', import.meta.url);
  for (const [path, text] of composeMemberConfigs()) await writeFile(fileURLToPath(new URL(path, root)), text);
}
