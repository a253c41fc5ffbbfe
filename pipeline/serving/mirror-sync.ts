/**
 * Re-syncs the profile and follow mirrors of the serving copy from ClickHouse. The workers
 * write every change through as they ingest it; this nightly pass repairs whatever Redis
 * lost or never saw. Newest wins inside Redis, so it is safe to run at any time.
 *
 * It copies only the rows ingested since the last complete re-sync (mirror-sync-state.ts),
 * less a margin for chunks stamped before that re-sync began but written after it read,
 * and every row when Redis has no record of a complete re-sync (a flushed Redis, the first
 * run) or the last full one is older than the configured period. Rows are read as
 * TabSeparated lines that ClickHouse formats (a follower's follows already packed for
 * Redis, hset-if-newer.ts): no per-row JSON or schema parsing here.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { tabSeparatedCells } from '../../shared/clickhouse/tab-separated.ts';
import { SEPARATOR } from './hset-if-newer.ts';
import type { PackedFollows, ProfileSummaryRow, ServingWriter } from './serving-writer.ts';

export interface MirrorSyncOptions {
  /** Rows ingested up to this long before the last re-sync began are copied again. */
  marginSeconds: number;
  /** A full copy at least this often (0: every time). */
  fullSyncEverySeconds: number;
  /** Of both reads (the nightly run's memory cap: a full copy groups every follow). */
  querySettings?: QuerySettings;
}

export interface MirrorSyncResult {
  /** Every row was copied (else only those ingested from `since`). */
  full: boolean;
  since?: number;
  profiles: number;
  follows: number;
  /** False when Redis lost the sync state during the copy: the next run copies everything. */
  committed: boolean;
}

/** Without options, every re-sync copies every row. */
const ALWAYS_FULL: MirrorSyncOptions = { marginSeconds: 0, fullSyncEverySeconds: 0 };

const ROWS_PER_WRITE = 5_000;

export async function syncMirrors(ch: ClickHouse, writer: ServingWriter, options = ALWAYS_FULL): Promise<MirrorSyncResult> {
  const startedAt = Math.floor(Date.now() / 1000);
  const token = `${startedAt}-${randomUUID()}`;
  const last = await writer.mirrorSync.begin(token);
  const full = !last || startedAt - last.fullAt >= options.fullSyncEverySeconds;
  const since = full ? undefined : Math.max(0, last.watermark - options.marginSeconds);
  const profiles = await copyLines(ch.lines(profilesSql(since), options.querySettings), parseProfile, () => 1, (rows) => writer.profiles(rows));
  const follows = await copyLines(ch.lines(followsSql(since), options.querySettings), parseFollows, (f) => f.count, (groups) => writer.packedFollows(groups));
  const committed = await writer.mirrorSync.commit(token, { watermark: startedAt, fullAt: full ? startedAt : last.fullAt });
  return { full, ...(since === undefined ? {} : { since }), profiles, follows, committed };
}

/*
 * A full copy reads each key's newest row (FINAL). An incremental one reads every row
 * ingested since, whatever its version, without FINAL: the mirror keeps the newest state
 * of each key, so an older row among them never replaces a newer one already there.
 */

function rowsSince(since: number | undefined): SqlFragment {
  return since === undefined ? sql`FINAL` : sql`WHERE ingested_at >= toDateTime(${since})`;
}

function profilesSql(since: number | undefined): SqlFragment {
  return sql`SELECT profile_id, toUInt32(updated_at), name, avatar FROM profiles ${rowsSince(since)}`;
}

/**
 * One line per follower: its follows as PackedFollows (serving-writer.ts), built by
 * ClickHouse: each (followee, state, state) with state = followState(updated_at, active).
 * Sorted, so that a line does not depend on the order the table's parts are read in (the
 * mirror keeps the newest state of each followee whatever the order; a test compares the
 * lines of two ClickHouse versions, which read the parts of one insert in different orders).
 */
function followsSql(since: number | undefined): SqlFragment {
  return sql`
    SELECT follower_profile_id, count(),
           arrayStringConcat(arraySort(groupArray(concat(followee_profile_id, ${SEPARATOR}, state, ${SEPARATOR}, state, ${SEPARATOR}))), '')
    FROM
    (
        SELECT follower_profile_id, followee_profile_id, toString(toUInt64(toUInt32(updated_at)) * 2 + active) AS state
        FROM follows ${rowsSince(since)}
    )
    GROUP BY follower_profile_id`;
}

function parseProfile(line: string): ProfileSummaryRow {
  const [profile_id, updatedAt, name, avatar] = tabSeparatedCells(line) as [string, string, string, string];
  return { profile_id, updated_at: Number(updatedAt), name, avatar };
}

function parseFollows(line: string): PackedFollows {
  const [follower, count, packed] = tabSeparatedCells(line) as [string, string, string];
  return { follower, count: Number(count), packed };
}

/**
 * Writes batches of parsed lines, each while the next is read and parsed (Redis and Node
 * work at the same time). Returns the rows (for follows: the follows) copied.
 */
async function copyLines<T>(
  batches: AsyncIterable<string[]>,
  parse: (line: string) => T,
  rowsOf: (item: T) => number,
  write: (items: T[]) => Promise<void>,
): Promise<number> {
  let batch: T[] = [];
  let rows = 0;
  let batchRows = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    writing = write(batch);
    writing.catch(() => {}); // awaited before the next write or at the end
    rows += batchRows;
    batch = [];
    batchRows = 0;
  };
  for await (const lines of batches) {
    for (const line of lines) {
      const item = parse(line);
      batch.push(item);
      batchRows += rowsOf(item);
      if (batchRows >= ROWS_PER_WRITE) await flush();
    }
  }
  if (batch.length > 0) await flush();
  await writing;
  return rows;
}
