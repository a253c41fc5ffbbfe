/**
 * On a ClickHouse cluster, per node, read at scrape time (what `soulgraph status` shows):
 *
 *   soulgraph_clickhouse_node_up{node, shard, replica}              1 when the node answers, 0 when not
 *   soulgraph_clickhouse_replication_behind{node, shard, replica}   log entries and fetches its replicas have still to apply
 *
 * A dead replica leaves its shard on fewer copies, and a replica far behind answers reads
 * with old rows; neither shows in the API's errors until a second failure. On one server
 * both are empty. Label values are the cluster's nodes: a bounded set.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { replicationLagByNode, type NodeLag } from '../../shared/clickhouse/replication-wait.ts';

export function registerReplicationLag(registry: Registry, ch: ClickHouse): void {
  // A scrape collects both gauges at once: they share one look at the nodes.
  let asking: Promise<NodeLag[]> | undefined;
  const lagByNode = () => (asking ??= (ch.cluster ? replicationLagByNode(ch) : Promise.resolve([])).finally(() => (asking = undefined)));
  const gauge = (name: string, help: string, value: (lag: NodeLag) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['node', 'shard', 'replica'] as const,
      registers: [registry],
      async collect() {
        const lags = await lagByNode();
        this.reset();
        for (const lag of lags) {
          const v = value(lag);
          if (v !== undefined) this.set({ node: lag.address, shard: lag.shard, replica: lag.replica }, v);
        }
      },
    });
  gauge('soulgraph_clickhouse_node_up', 'ClickHouse cluster nodes: 1 when the node answers, 0 when it does not', (lag) => (lag.behind === undefined ? 0 : 1));
  gauge('soulgraph_clickhouse_replication_behind', 'ClickHouse cluster nodes: replication log entries and fetches the node has still to apply, every table of the database', (lag) => lag.behind);
}
