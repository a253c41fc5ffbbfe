/**
 * Copies recommendation lists from ClickHouse into the serving copy: each profile's first
 * SERVING_DEPTH rows as one stored list (shared/serving.ts, encodeServedList). The stored
 * entries are ClickHouse's own TabSeparated output, one row per line: Node only groups the
 * lines by profile and pipes them into SETs, without decoding a row (per-row parsing in Node
 * cost more than computing the bucket's GROUP BY).
 */
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { encodeServedList, servedListText } from '../../shared/serving.ts';
import type { ServingWriter, StoredList } from './serving-writer.ts';

const LISTS_PER_WRITE = 1_000;
const EMPTY_LIST = encodeServedList({ m: 0, e: [] });

/**
 * Publishes the lists of the rows of `snapshotId` that match `where` (a bucket, or one
 * profile), plus an empty list for each of `alsoEmpty` without rows, so that a profile with
 * nothing to recommend is not recomputed on every request. Returns the lists written.
 * `settings`: the nightly run's memory cap and query log, like its other statements.
 */
export async function publishLists(
  ch: ClickHouse,
  writer: ServingWriter,
  snapshotId: number,
  where: SqlFragment,
  depth: number,
  alsoEmpty: Iterable<string> = [],
  settings?: QuerySettings,
): Promise<number> {
  const pending: StoredList[] = [];
  const published = new Set<string>();
  const add = async (profileId: string, text: string) => {
    pending.push({ snapshotId, profileId, text });
    published.add(profileId);
    if (pending.length >= LISTS_PER_WRITE) await writer.lists(pending.splice(0));
  };
  let profileId: string | undefined;
  let entries: string[] = [];
  let more = false;
  const finish = () => (profileId === undefined ? undefined : add(profileId, servedListText(more, entries)));
  for await (const lines of ch.lines(servedRowsSql(snapshotId, where, depth), settings)) {
    for (const line of lines) {
      // profile_id and rank, then the entry's cells as ClickHouse wrote them.
      const afterProfile = line.indexOf('\t');
      const afterRank = line.indexOf('\t', afterProfile + 1);
      const profile = line.slice(0, afterProfile);
      if (profile !== profileId) {
        await finish();
        [profileId, entries, more] = [profile, [], false];
      }
      // The one row past the depth only says that ClickHouse holds more.
      if (Number(line.slice(afterProfile + 1, afterRank)) > depth) more = true;
      else entries.push(line.slice(afterRank + 1));
    }
  }
  await finish();
  for (const profileId of alsoEmpty) {
    if (!published.has(profileId)) await add(profileId, EMPTY_LIST);
  }
  if (pending.length > 0) await writer.lists(pending);
  return published.size;
}

/**
 * profile_id, rank, then the entry's cells in encodeServedList's order, for the first
 * `depth` + 1 ranks of every profile, grouped by profile in rank order. Profile ids are
 * identifiers (nothing to escape), so the first tab ends the profile id.
 */
function servedRowsSql(snapshotId: number, where: SqlFragment, depth: number): SqlFragment {
  return sql`
    SELECT profile_id, rank, candidate_id, toUInt8(reason_kind), reason_chain_id, reason_subject
    FROM recommendations
    WHERE snapshot_id = ${snapshotId} AND ${where} AND rank <= ${depth + 1}
    ORDER BY profile_id, rank`;
}
