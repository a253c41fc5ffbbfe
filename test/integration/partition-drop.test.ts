/**
 * shared/clickhouse/partition-drop.ts on one server (local-cluster.test.ts covers a cluster).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dropPartitionsWhere } from '../../shared/clickhouse/partition-drop.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { recommendationRows } from '../fixtures/recommendation-rows.ts';

const env = useTestEnvironment();
const perSnapshot = z.object({ snapshot_id: z.coerce.number(), n: z.coerce.number() });


describe('dropping partitions on one server', () => {
  it("drops the partitions whose id matches, in every table given, and leaves the others", async () => {
    await env.ch.insert('recommendations', [...recommendationRows(1, 20, 2), ...recommendationRows(2, 20, 2)]);
    await env.ch.insert('profile_tags', [1, 2].map((snapshot) => ({ snapshot_id: snapshot, profile_id: 'p1', tags: ['DeFi'] })));
    const dropped = await dropPartitionsWhere(env.ch, ['recommendations', 'profile_tags'], sql`(partition_id = '1' OR startsWith(partition_id, '1-'))`);
    expect(dropped).toBe(3);
    expect(await env.ch.query(sql`SELECT snapshot_id, count() AS n FROM recommendations GROUP BY snapshot_id`, perSnapshot)).toEqual([{ snapshot_id: 2, n: 20 }]);
    expect(await env.ch.query(sql`SELECT snapshot_id, count() AS n FROM profile_tags GROUP BY snapshot_id`, perSnapshot)).toEqual([{ snapshot_id: 2, n: 1 }]);
  });

  it('drops nothing when no partition matches', async () => {
    expect(await dropPartitionsWhere(env.ch, ['recommendations'], sql`partition_id = '99'`)).toBe(0);
  });
});
