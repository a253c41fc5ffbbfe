/**
 * Copies recommendation lists from ClickHouse into the serving copy: each profile's first
 * SERVING_DEPTH rows as one ServedList (shared/serving.ts). ClickHouse builds each list's
 * JSON, one TabSeparated line per profile, so Node only pipes lines into SETs: per-row
 * parsing in Node cost more than computing the bucket's GROUP BY.
 */
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { jsonStringSql } from '../../shared/clickhouse/json-string-sql.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { tabSeparatedCells } from '../../shared/clickhouse/tab-separated.ts';
import { encodeServedList } from '../../shared/serving.ts';
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
  for await (const lines of ch.lines(servedListsSql(snapshotId, where, depth), settings)) {
    for (const line of lines) {
      const [profileId, text] = tabSeparatedCells(line) as [string, string];
      await add(profileId, text);
    }
  }
  for (const profileId of alsoEmpty) {
    if (!published.has(profileId)) await add(profileId, EMPTY_LIST);
  }
  if (pending.length > 0) await writer.lists(pending);
  return published.size;
}

/**
 * One line per profile: profile_id, then its list exactly as encodeServedList writes it
 * (shared/serving.ts): the header {"m":<0|1>,"n":<entries>}, then each of the first `depth`
 * entries ["<candidate>",<kind>,<chain>,"<subject>"] on a line of its own, in rank order;
 * m = 1 when the profile has more (a row at rank depth + 1). Candidates are profile ids,
 * identifiers (shared/records/fields.ts) with nothing to escape; subjects (collection
 * names) are escaped (a second jsonStringSql cost ~1 s a bucket).
 */
function servedListsSql(snapshotId: number, where: SqlFragment, depth: number): SqlFragment {
  return sql`
    SELECT profile_id,
           concat('{"m":', toString(more), ',"n":', toString(length(entries)), '}', arrayStringConcat(arrayMap(e -> concat('\\n', e), entries)))
    FROM
    (
        SELECT profile_id,
               toUInt8(max(rank) > ${depth}) AS more,
               arrayMap(x -> x.2, arraySort(x -> x.1, groupArrayIf((rank, entry), rank <= ${depth}))) AS entries
        FROM
        (
            SELECT profile_id, rank,
                   concat('["', candidate_id, '",', toString(toUInt8(reason_kind)), ',', toString(reason_chain_id), ',',
                          ${jsonStringSql(sql`reason_subject`)}, ']') AS entry
            FROM recommendations
            WHERE snapshot_id = ${snapshotId} AND ${where} AND rank <= ${depth + 1}
        )
        GROUP BY profile_id
    )`;
}
