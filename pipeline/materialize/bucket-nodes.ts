/**
 * Where the nightly run computes each bucket. On a cluster with CLICKHOUSE_NODE_URLS, bucket
 * b runs on node b mod n: every node holds the whole working set (the mat_* tables are
 * replicated to all, docs/cluster.md), so each computes its buckets from local tables and
 * writes through the Distributed `recommendations`, and the nodes share the run's work. A
 * node that does not answer leaves its buckets to the next one. Otherwise every bucket runs
 * where CLICKHOUSE_URL points.
 */
import type { ClickHouse } from '../../shared/clickhouse/client.ts';

export interface BucketNode {
  client: ClickHouse;
  /** host:port of the node, when CLICKHOUSE_NODE_URLS named it (a bucket's result reports it). */
  address?: string;
}

export interface BucketNodes {
  /** The node that computes `bucket`: its own, or while that one does not answer, the next that does. */
  forBucket(bucket: number): Promise<BucketNode>;
}

export function bucketNodes(main: ClickHouse): BucketNodes {
  const { nodes } = main;
  return {
    async forBucket(bucket) {
      // A dead node's buckets move to the next node (a retried bucket job asks again).
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[(bucket + i) % nodes.length]!;
        if (await node.ping().catch(() => false)) return { client: node, address: node.address };
      }
      return { client: main };
    },
  };
}
