/**
 * Reads of the nightly recommendation snapshots (filled by the materialization job) and of
 * the live follow graph, which decides `following` at request time.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import { REASON_KINDS } from '../../shared/serving.ts';

const snapshotRow = z.object({ snapshot_id: z.coerce.number() });
const recommendationRow = z.object({
  rank: z.coerce.number(),
  candidate_id: z.string(),
  reason_kind: z.enum(REASON_KINDS),
  reason_chain_id: z.coerce.number(),
  reason_subject: z.string(),
});
const followeeRow = z.object({ followee_profile_id: z.string() });

export type RecommendationRow = z.infer<typeof recommendationRow>;

export async function newestReadySnapshot(ch: ClickHouse): Promise<number | undefined> {
  const [row] = await ch.query(
    sql`SELECT snapshot_id FROM recommendation_snapshots FINAL
        WHERE status = 'ready' ORDER BY snapshot_id DESC LIMIT 1`,
    snapshotRow,
  );
  return row?.snapshot_id;
}

/**
 * newestReadySnapshot, remembered for `ttlMs`: a nightly swap is seen within that time
 * (plus one query), and the first page of most requests costs no snapshot query. Once the
 * value is `ttlMs` old, the next caller starts one refresh and callers keep getting the old
 * value until it lands, so that a busy API never queues behind the snapshot query. A value
 * older than two intervals (an API idle for an hour) is not served: it may name a snapshot
 * that newer runs have replaced and retention has dropped, whose reads come back empty;
 * callers wait for the refresh instead.
 */
export function cachedNewestSnapshot(ch: ClickHouse, ttlMs: number, now: () => number = Date.now): () => Promise<number | undefined> {
  let known: { at: number; value: number | undefined } | undefined;
  let refreshing: Promise<number | undefined> | undefined;
  const refresh = () =>
    (refreshing ??= newestReadySnapshot(ch)
      .then((value) => {
        known = { at: now(), value };
        return value;
      })
      .finally(() => (refreshing = undefined)));
  // SNAPSHOT_CACHE_SECONDS=0 (tests, or an operator who wants swaps seen at once): always ask.
  if (ttlMs === 0) return () => newestReadySnapshot(ch);
  return async () => {
    if (!known) return refresh();
    const age = now() - known.at;
    if (age < ttlMs) return known.value;
    if (age >= 2 * ttlMs) return refresh();
    void refresh().catch(() => {}); // the old value serves until ClickHouse answers
    return known.value;
  };
}

export async function isReadySnapshot(ch: ClickHouse, snapshotId: number): Promise<boolean> {
  const rows = await ch.query(
    sql`SELECT snapshot_id FROM recommendation_snapshots FINAL WHERE snapshot_id = ${snapshotId} AND status = 'ready'`,
    snapshotRow,
  );
  return rows.length > 0;
}

/** Up to `count` rows after `afterRank`, best first. */
export async function recommendationsAfter(
  ch: ClickHouse,
  snapshotId: number,
  profileId: string,
  afterRank: number,
  count: number,
): Promise<RecommendationRow[]> {
  return ch.query(
    sql`SELECT rank, candidate_id, toString(reason_kind) AS reason_kind, reason_chain_id, reason_subject
        FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId} AND rank > ${afterRank}
        ORDER BY rank
        LIMIT ${count}`,
    recommendationRow,
  );
}

/** Which of `candidates` the profile follows now (in-service follows). */
export async function followedAmong(ch: ClickHouse, profileId: string, candidates: string[]): Promise<Set<string>> {
  if (candidates.length === 0) return new Set();
  const rows = await ch.query(
    sql`SELECT followee_profile_id FROM follows FINAL
        WHERE follower_profile_id = ${profileId} AND followee_profile_id IN ${inList(candidates)} AND active = 1`,
    followeeRow,
  );
  return new Set(rows.map((r) => r.followee_profile_id));
}
