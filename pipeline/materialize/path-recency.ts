/**
 * When a friend-of-friend path was made. People tend to follow next whom their friends
 * followed about when they themselves last followed anyone: activity comes in bursts, and a
 * friend's follow from the same weeks says more than one from years before or after. So a
 * path p -> f -> c (or p <- f -> c) can weigh by how near f's follow of c is to p's newest
 * follow of its own, when the run's fit finds that this ranks its own held-out newest follows
 * no worse (recencyFitSql); docs/quality.md measures it.
 *
 * Time is measured in each run's follows, not in seconds, so that one rule serves an app whose
 * history is weeks and one whose history is years: a follow's moment is its place among the
 * run's follows, 2000 x (those made before it + half of those made in the same span of
 * time, TIME_SPANS) / all of them (mat_follow_times), 0 for the earliest and 2000 after the
 * newest. A path whose follow is `gap` moments from the caller's newest follow weighs
 *
 *     (0.2 + e^(-gap / 200)) / 1.2
 *
 * times its middle's weight: 1 at the same moment, half at about a tenth of the run's follows
 * apart, a sixth at the far end. A caller that follows nobody has no newest follow, and its
 * paths weigh 1; so does every path where all follows share one span (a graph without
 * times), or where the fit left recency off.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { beyondChanceSql, heldOutFitCountsSql } from './held-out-ranking.ts';
import { resourceAllocationChosenSql } from './path-weight.ts';
import { readRunRow, runValueSql } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';
import { runFollowsSql } from './signal-inputs.ts';

/** A path's least weight, before the scale that makes a path at the caller's own moment weigh 1. */
const FLOOR = 0.2;
/** Moments (of 2000) over which a path's weight above the floor falls to 1 / e: a tenth of the run's follows. */
const DECAY = 200;

/**
 * How many spans of equal length the run's time is cut into at most (mat_follow_times). A
 * follow's place is counted by span, not by second: at a million profiles the run holds some
 * 50 M follows made in some 47 M distinct seconds, and a map from each second to its place
 * went past the memory cap (docs/benchmarks.md), where 2^20 spans fit in a few megabytes.
 * Spans are still fine enough: a moment has 2000 steps, so only a burst of more than a
 * two-thousandth of all follows inside one span blurs more than the moment's own rounding.
 */
export const TIME_SPANS = 2 ** 20;

/**
 * mat_follow_times: each span of `seconds` (TIME_SPANS spans cover the app's follows, from its
 * first to its newest) in which at least one of the run's follows (those mat_follow_edges
 * holds) was made, how many were made by its end, and the moment of a follow made in it: 2000
 * x (follows made before the span + half of those made in it) / all of them. Spans start at
 * multiples of `seconds`, so a time finds its span by arithmetic (spanStartSql), not a search.
 */
export function followTimesSql(snapshotId: number): SqlFragment {
  const follows = runFollowsSql(snapshotId);
  // The span's length comes from every follow stored, not only the run's: a superset's range
  // holds the run's, and its minimum and maximum are one cheap column scan.
  return sql`
    INSERT INTO mat_follow_times (snapshot_id, since, seconds, through, moment)
    SELECT ${snapshotId}, toDateTime(span * span_seconds), span_seconds, through, toUInt16(intDiv(1000 * (through - made + through), greatest(total, 1)))
    FROM
    (
        SELECT any(seconds) AS span_seconds, arraySort(groupArray(span_index)) AS spans,
               arraySort((n, s) -> s, groupArray(follows), groupArray(span_index)) AS counts,
               arrayCumSum(counts) AS throughs, arraySum(counts) AS total
        FROM
        (
            SELECT intDiv(toUInt32(followed_at), length_seconds) AS span_index, any(length_seconds) AS seconds, count() AS follows
            FROM (SELECT followed_at FROM (${follows})) AS run_follows
            CROSS JOIN
            (
                SELECT toUInt32(intDiv(toUInt32(max(followed_at)) - toUInt32(min(followed_at)), ${TIME_SPANS}) + 1) AS length_seconds FROM follows
            ) AS span_length
            GROUP BY span_index
        )
    )
    ARRAY JOIN spans AS span, counts AS made, throughs AS through`;
}

/** The start of the run's span (mat_follow_times) that holds a follow made at `time`. */
export function spanStartSql(snapshotId: number, time: SqlFragment): SqlFragment {
  const seconds = sql`(SELECT greatest(any(seconds), 1) FROM mat_follow_times WHERE snapshot_id = ${snapshotId})`;
  return sql`toDateTime(intDiv(toUInt32(${time}), ${seconds}) * ${seconds})`;
}

/**
 * The moment of a follow made at `time` (a DateTime scalar) among the snapshot's follows: for
 * a follow the run holds, as mat_follow_times has it; for a later one (a live follow read on
 * demand), 2000; 0 when the run holds no follow at all.
 */
export function momentAtSql(snapshotId: number, time: SqlFragment): SqlFragment {
  return sql`
    (SELECT toUInt16(intDiv(1000 * (maxIf(through, since + seconds <= ${time}) + maxIf(through, since <= ${time})), greatest(max(through), 1)))
     FROM mat_follow_times WHERE snapshot_id = ${snapshotId})`;
}

/**
 * What a path whose follow was made at `moment` weighs, as a share, for a caller whose newest
 * follow was made at `newest` (`followsAnyone` 0: a caller that follows nobody, 1 for every path).
 */
export function recencyOf(moment: SqlFragment, newest: SqlFragment, followsAnyone: SqlFragment): SqlFragment {
  return sql`if(${followsAnyone} = 1, (${FLOOR} + exp(-abs(toInt32(${moment}) - toInt32(${newest})) / ${DECAY})) / ${1 + FLOOR}, 1)`;
}

/** What a path weighs for its time in this run's lists: recencyOf where the run chose recency, else 1. */
export function pathRecencySql(snapshotId: number, moment: SqlFragment, newest: SqlFragment, followsAnyone: SqlFragment): SqlFragment {
  const chosen = runValueSql(snapshotId, 'mat_recency_fit', sql`recency`, sql`0`);
  return sql`if(${chosen} = 1, ${recencyOf(moment, newest, followsAnyone)}, 1)`;
}

/**
 * mat_recency_fit: the held-out follows (held-out-ranking.ts) ranked with the run's path weight,
 * and with each path also weighed by recencyOf (both places are in mat_held_out_places,
 * held-out-places.ts); what each found, and whether the lists weigh paths by recency. They do
 * unless the follows only the plain ranking finds outnumber those only the recent one finds
 * by more than twice the square root of both together (a sign test at about 95 %), or
 * REC_PATH_RECENCY says always or never. On by default, unlike the path weight's switch: the
 * question the lists answer is always whom a profile follows next, the question recency is
 * for, and on Bitcoin-Alpha's newest follows it ranked better at every seed while its fit
 * (about 3,000 held-out follows) was too small to tell at 95 % (docs/quality.md). Where every
 * follow of the run shares one span, the two rankings are one and recency changes nothing.
 */
export function recencyFitSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const byDegree = resourceAllocationChosenSql(snapshotId);
  const plain = sql`if(${byDegree} = 1, by_resource_allocation, by_adamic_adar)`;
  const recent = sql`if(${byDegree} = 1, by_resource_allocation_recent, by_adamic_adar_recent)`;
  const decided =
    params.pathRecency === 'fit' ? sql`NOT (${beyondChanceSql('only_plain', 'only_recent')})` : sql`${params.pathRecency === 'always' ? 1 : 0}`;
  return sql`
    INSERT INTO mat_recency_fit (snapshot_id, held_out, found_plain, found_recent, only_plain, only_recent, recency)
    SELECT ${snapshotId}, held_out, found_a AS found_plain, found_b AS found_recent, only_a AS only_plain, only_b AS only_recent, toUInt8(${decided})
    FROM (${heldOutFitCountsSql(snapshotId, params, plain, recent)})`;
}

const recencyFitRow = z.object({
  held_out: z.coerce.number(),
  found_plain: z.coerce.number(),
  found_recent: z.coerce.number(),
  only_plain: z.coerce.number(),
  only_recent: z.coerce.number(),
  recency: z.coerce.number().transform((v) => v === 1),
});
export type RecencyFit = z.infer<typeof recencyFitRow>;

/** What the run measured and chose (for its log line). */
export async function readRecencyFit(ch: ClickHouse, snapshotId: number): Promise<RecencyFit | undefined> {
  return readRunRow(ch, 'mat_recency_fit', snapshotId, recencyFitRow);
}
