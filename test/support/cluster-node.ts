/** What tests and cluster:check read from one member of a local cluster on its own, not through the Distributed tables. */
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { parseConfig } from '../../shared/config.ts';
import type { ClickHouseMember } from '../../shared/local-stack/local-cluster.ts';

/** `onNode(member, use)` for a database: `use` gets a client of that member alone, closed after it. */
export function onNodeOf(database: string) {
  return async function onNode<T>(member: ClickHouseMember, use: (node: ClickHouse) => Promise<T>): Promise<T> {
    const node = createClickHouse(parseConfig({ CLICKHOUSE_URL: member.url }), { database });
    try {
      return await use(node);
    } finally {
      await node.close();
    }
  };
}
