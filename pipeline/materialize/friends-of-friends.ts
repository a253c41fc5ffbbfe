/**
 * Signal 4's evidence, friends of friends, as rows (p, c, signal, part, key): one per path
 * caller p -> followee f -> candidate c, worth f's weight, keyed by f's degree << 32 | f so
 * that the smallest key names who follows fewest (then the lowest dense id).
 *
 * The expansion is bounded (bounded-lists.ts), so that a caller's paths stay few whatever
 * the hubs: forward through the caller's first REC_FOF_VIA_FOLLOWEES followees, each passing
 * on its REC_FOF_PER_FOLLOWEE most followed; and back from each candidate who follows the
 * caller through its REC_FOF_PER_FOLLOWER most followed followers. docs/quality.md measures
 * the choices.
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, intermediaryWeightSql } from './bounded-lists.ts';
import type { CallerFacts } from './candidates.ts';
import type { ScoringParams } from './scoring.ts';

/**
 * People the caller follows follow the candidate: the forward paths through the caller's
 * first hops to what each passes on (mat_fof_edges.dst_rank), then the paths back.
 */
export function friendsOfFriendsSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  return sql`
    SELECT p, c, toUInt8(${signal}) AS signal, w AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM (${firstHopsSql(snapshotId, callers, params)})
    ALL INNER JOIN
    (
        SELECT src AS f, dst AS c FROM mat_fof_edges WHERE snapshot_id = ${snapshotId} AND dst_rank <= ${params.fof.perFollowee}
    ) USING f
    UNION ALL
    ${pathsBackSql(snapshotId, callers, params, signal)}`;
}

/**
 * (p, f, w, degree): the followees a caller's friends of friends come through, at most
 * REC_FOF_VIA_FOLLOWEES: those who follow the caller back first (the closest ties), then
 * those who follow fewest (they weigh most), then the lower dense id. Followees who follow
 * nobody lead nowhere and take no place. Sorted per caller as an array of UInt64 keys:
 * (not following back) << 63 | degree << 32 | f.
 */
function firstHopsSql(snapshotId: number, callers: CallerFacts, params: ScoringParams): SqlFragment {
  return sql`
    SELECT p, toUInt32(bitAnd(hop, ${LOW_HALF})) AS f, toUInt32(bitAnd(bitShiftRight(hop, 32), 2147483647)) AS degree,
           ${intermediaryWeightSql(sql`degree`)} AS w
    FROM
    (
        SELECT p, arrayJoin(arraySlice(arraySort(groupArray(bitShiftLeft(toUInt64(1 - follows_back), 63)
                                                            + bitShiftLeft(toUInt64(followee_degree), 32) + f)), 1, ${params.fof.viaFollowees})) AS hop
        FROM
        (
            SELECT p, f, ${pairKey('p', 'f')} IN (SELECT ${pairKey('p', 'c')} FROM (${callers.followers})) AS follows_back
            FROM (${callers.followees})
        )
        ALL INNER JOIN
        (
            SELECT src AS f, any(src_degree) AS followee_degree FROM mat_fof_edges WHERE snapshot_id = ${snapshotId} GROUP BY src
        ) USING f
        GROUP BY p
    )`;
}

/**
 * The paths back from a candidate c who follows the caller p: c's followers among its first
 * REC_FOF_PER_FOLLOWER (the most followed) whom p follows. Reciprocity is the strongest
 * evidence (docs/quality.md), and these paths find such candidates whatever the bounds of
 * the forward expansion; a path the forward expansion already has is not counted twice.
 *
 * The join fans each (p, c) out to c's first followers (about ten times more rows than it
 * keeps), so each follower travels as one UInt64: (passed on by f as a forward candidate)
 * << 63 | f's degree << 32 | f; its weight is computed only for the paths kept.
 */
function pathsBackSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  const followed = sql`(SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))`;
  return sql`
    SELECT p, c, toUInt8(${signal}) AS signal, ${intermediaryWeightSql(sql`degree`)} AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM
    (
        SELECT p, c, toUInt32(bitAnd(via, ${LOW_HALF})) AS f, toUInt32(bitAnd(bitShiftRight(via, 32), 2147483647)) AS degree,
               bitShiftRight(via, 63) AS passed_on
        FROM (SELECT p, c FROM (${callers.followers}) WHERE ${pairKey('p', 'c')} NOT IN ${followed})
        ALL INNER JOIN
        (
            SELECT dst AS c, bitShiftLeft(toUInt64(dst_rank <= ${params.fof.perFollowee}), 63) + bitShiftLeft(toUInt64(src_degree), 32) + src AS via
            FROM mat_fof_edges WHERE snapshot_id = ${snapshotId} AND src_rank <= ${params.fof.perFollower}
        ) USING c
    )
    WHERE ${pairKey('p', 'f')} IN ${followed}
      AND NOT (passed_on = 1 AND ${pairKey('p', 'f')} IN (SELECT ${pairKey('p', 'f')} FROM (${firstHopsSql(snapshotId, callers, params)})))`;
}

/** Two dense ids as one UInt64 (p << 32 | other): a set of tuples is several times slower to probe on ClickHouse 18.16. */
export function pairKey(a: string, b: string): SqlFragment {
  return sql`bitShiftLeft(toUInt64(${identifier(a)}), 32) + ${identifier(b)}`;
}
