/**
 * Every node of the client's cluster, as `remote()` addresses (host:port from
 * system.clusters), for what must be asked of each node rather than of a Distributed table:
 * replication lag, parts, mutations. Empty on one server.
 */
import { z } from 'zod';
import type { ClickHouse } from './client.ts';
import { sql } from './sql-literal.ts';

const hostRow = z.object({ address: z.string(), port: z.coerce.number() });

export async function clusterHosts(ch: ClickHouse): Promise<string[]> {
  if (!ch.cluster) return [];
  const hosts = await ch.query(sql`SELECT DISTINCT host_address AS address, port FROM system.clusters WHERE cluster = ${ch.cluster}`, hostRow);
  return hosts.map((host) => `${host.address}:${host.port}`);
}
