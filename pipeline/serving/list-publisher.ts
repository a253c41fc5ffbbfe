/**
 * Copies recommendation lists from ClickHouse into the serving copy: each profile's first
 * SERVING_DEPTH rows as one ServedList (shared/serving.ts). ClickHouse builds each list's
 * JSON, one TabSeparated line per profile, so Node only pipes lines into SETs: per-row
 * parsing in Node cost more than computing the bucket's GROUP BY.
 */
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { jsonStringSql } from '../../shared/clickhouse/json-string-sql.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { tabSeparatedCells } from '../../shared/clickhouse/tab-separated.ts';
import type { ServedList } from '../../shared/serving.ts';
import type { ServingWriter, StoredList } from './serving-writer.ts';

const LISTS_PER_WRITE = 1_000;
const EMPTY_LIST = JSON.stringify({ m: 0, e: [] } satisfies ServedList);

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
  const pending: StoredList[] = [];
  const published = new Set<string>();
  const add = async (profileId: string, json: string) => {
    pending.push({ snapshotId, profileId, json });
    published.add(profileId);
    if (pending.length >= LISTS_PER_WRITE) await writer.lists(pending.splice(0));
  };
  for await (const lines of ch.lines(servedListsSql(snapshotId, where, depth))) {
    for (const line of lines) {
      const [profileId, json] = tabSeparatedCells(line) as [string, string];
      await add(profileId, json);
    }
  }
  for (const profileId of alsoEmpty) {
    if (!published.has(profileId)) await add(profileId, EMPTY_LIST);
  }
  if (pending.length > 0) await writer.lists(pending);
  return published.size;
}

/**
 * One line per profile: profile_id, then its ServedList as JSON.stringify would write it,
 * {"m":<0|1>,"e":[["<candidate>",<kind>,<chain>,"<subject>"],...]} with the first `depth`
 * entries in rank order, and m = 1 when the profile has more (a row at rank depth + 1).
 * Candidates are profile ids, identifiers (shared/records/fields.ts) with nothing to
 * escape; subjects (collection names) are escaped (a second jsonStringSql cost ~1 s a bucket).
 */
function servedListsSql(snapshotId: number, where: SqlFragment, depth: number): SqlFragment {
  return sql`
    SELECT profile_id,
           concat('{"m":', toString(toUInt8(max(rank) > ${depth})), ',"e":[',
                  arrayStringConcat(arrayMap(x -> x.2, arraySort(x -> x.1, groupArrayIf((rank, entry), rank <= ${depth}))), ','),
                  ']}')
    FROM
    (
        SELECT profile_id, rank,
               concat('["', candidate_id, '",', toString(toUInt8(reason_kind)), ',', toString(reason_chain_id), ',',
                      ${jsonStringSql(sql`reason_subject`)}, ']') AS entry
        FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND ${where} AND rank <= ${depth + 1}
    )
    GROUP BY profile_id`;
}
