/** A profile's tags in a snapshot (profile_tags, written by the nightly job). */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';

const tagsRow = z.object({ tags: z.array(z.string()) });

/** No row: the profile held no SBT of a described issuer in that snapshot, so no tags. */
export async function tagsOf(ch: ClickHouse, snapshotId: number, profileId: string): Promise<string[]> {
  const [row] = await ch.query(
    sql`SELECT tags FROM profile_tags WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId} LIMIT 1`,
    tagsRow,
  );
  return row?.tags ?? [];
}
