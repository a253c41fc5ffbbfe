/**
 * Copies recommendation lists from ClickHouse into the serving copy: each profile's first
 * SERVING_DEPTH rows, streamed in (profile_id, rank) order so memory stays flat.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import type { ServedEntry, ServedList } from '../../shared/serving.ts';
import type { ServingWriter } from './serving-writer.ts';

const rowSchema = z.object({
  profile_id: z.string(),
  candidate_id: z.string(),
  kind: z.coerce.number().int().min(1).max(4),
  chain_id: z.coerce.number(),
  subject: z.string(),
});

const LISTS_PER_WRITE = 1_000;

/**
 * Publishes the lists of the rows of `snapshotId` that match `where` (a bucket, or one
 * profile), plus an empty list for each of `alsoEmpty` without rows, so that a profile with
 * nothing to recommend is not recomputed on every request. Returns the lists written.
 */
export async function publishLists(
  ch: ClickHouse,
  writer: ServingWriter,
  snapshotId: number,
  where: SqlFragment,
  depth: number,
  alsoEmpty: Iterable<string> = [],
): Promise<number> {
  const pending: { snapshotId: number; profileId: string; list: ServedList }[] = [];
  const published = new Set<string>();
  const flush = async (force: boolean) => {
    if (pending.length >= LISTS_PER_WRITE || (force && pending.length > 0)) await writer.lists(pending.splice(0));
  };
  let current: { profileId: string; entries: ServedEntry[]; more: boolean } | undefined;
  const finish = async () => {
    if (!current) return;
    pending.push({ snapshotId, profileId: current.profileId, list: { m: current.more ? 1 : 0, e: current.entries } });
    published.add(current.profileId);
    await flush(false);
  };

  const rows = ch.stream(
    sql`SELECT profile_id, candidate_id, toUInt8(reason_kind) AS kind, reason_chain_id AS chain_id, reason_subject AS subject
        FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND ${where} AND rank <= ${depth + 1}
        ORDER BY profile_id, rank`,
    rowSchema,
  );
  for await (const row of rows) {
    if (current?.profileId !== row.profile_id) {
      await finish();
      current = { profileId: row.profile_id, entries: [], more: false };
    }
    if (current.entries.length < depth) current.entries.push([row.candidate_id, row.kind, row.chain_id, row.subject]);
    else current.more = true;
  }
  await finish();
  for (const profileId of alsoEmpty) {
    if (published.has(profileId)) continue;
    pending.push({ snapshotId, profileId, list: { m: 0, e: [] } });
    published.add(profileId);
    await flush(false);
  }
  await flush(true);
  return published.size;
}
