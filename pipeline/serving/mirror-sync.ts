/**
 * Re-syncs the profile and follow mirrors of the serving copy from ClickHouse. The workers
 * write every change through as they ingest it; this nightly pass repairs whatever Redis
 * lost or never saw (a flushed Redis, data ingested before the mirror existed). Newest wins,
 * so it is safe to run at any time.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import type { FollowRow, ProfileSummaryRow, ServingWriter } from './serving-writer.ts';

const profileRow = z.object({ profile_id: z.string(), name: z.string(), avatar: z.string(), updated_at: z.coerce.number() });
const followRow = z.object({
  follower_profile_id: z.string(),
  followee_profile_id: z.string(),
  updated_at: z.coerce.number(),
  active: z.coerce.number(),
});

const ROWS_PER_WRITE = 5_000;

export async function syncMirrors(ch: ClickHouse, writer: ServingWriter): Promise<{ profiles: number; follows: number }> {
  const profiles = await copyInBatches(
    ch.stream(sql`SELECT profile_id, name, avatar, toUInt32(updated_at) AS updated_at FROM profiles FINAL`, profileRow),
    (rows: ProfileSummaryRow[]) => writer.profiles(rows),
  );
  const follows = await copyInBatches(
    ch.stream(
      sql`SELECT follower_profile_id, followee_profile_id, toUInt32(updated_at) AS updated_at, active FROM follows FINAL`,
      followRow,
    ),
    (rows: FollowRow[]) => writer.follows(rows),
  );
  return { profiles, follows };
}

async function copyInBatches<T>(rows: AsyncIterable<T>, write: (batch: T[]) => Promise<void>): Promise<number> {
  let batch: T[] = [];
  let count = 0;
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === ROWS_PER_WRITE) {
      await write(batch);
      count += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await write(batch);
  return count + batch.length;
}
