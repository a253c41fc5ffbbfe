/**
 * Signal 4's evidence, friends of friends, as rows (p, c, signal, part, key): one per path
 * caller p -> followee f -> candidate c, worth f's weight, keyed by f's degree << 32 | f so
 * that the smallest key names who follows fewest (then the lowest dense id).
 *
 * The expansion is bounded (bounded-lists.ts), so that a caller's paths stay few whatever
 * the hubs: forward through the caller's first REC_FOF_VIA_FOLLOWEES followees, each passing
 * on its REC_FOF_PER_FOLLOWEE most followed that the caller does not follow yet; and back
 * from each candidate who follows the caller through its REC_FOF_PER_FOLLOWER most followed
 * followers. A path both would find is counted back only. docs/quality.md measures the
 * choices.
 *
 * Both directions read per-profile lists of the working set (mat_fof_forward, mat_fof_back):
 * each caller row looks its list up once, instead of joining edge by edge (a join that
 * materialises every path before filtering them cost a bucket half as much again), and only
 * the lists of the profiles the callers touch are read, so a bucket's memory does not grow
 * with the world.
 */
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, intermediaryWeightSql } from './bounded-lists.ts';
import { pairKey, type CallerFacts } from './caller-facts.ts';
import type { ScoringParams } from './scoring.ts';

/** People the caller follows follow the candidate: the forward paths, then the paths back. */
export function friendsOfFriendsSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  return sql`
    SELECT p, arrayJoin(${passedOnSql(callers, params, 'without paths back')}) AS c, toUInt8(${signal}) AS signal,
           ${intermediaryWeightSql(sql`degree`)} AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM (${callers.firstHops}) AS hops
    ALL INNER JOIN
    (
        SELECT f, candidates FROM mat_fof_forward
        WHERE snapshot_id = ${snapshotId} AND f IN (SELECT f FROM (${callers.firstHops}))
    ) AS forward USING f
    UNION ALL
    ${pathsBackSql(snapshotId, callers, signal)}
    UNION ALL
    ${coFollowedSql(snapshotId, callers, params, signal)}`;
}

/**
 * What followee f (a row with its list, candidates) passes on to caller p: the first
 * REC_FOF_PER_FOLLOWEE of its list that are neither p nor followed by p. On p's forward
 * paths, those less the ones a path back reaches: candidates who follow p and whose list
 * of first followers holds f (the entry's flag; pathsBackSql), so that no path counts twice.
 */
function passedOnSql(callers: CallerFacts, params: ScoringParams, paths: 'without paths back' | 'all'): SqlFragment {
  const entry = sql`bitShiftLeft(toUInt64(p), 32) + bitAnd(x, ${LOW_HALF})`;
  const unseen = sql`arraySlice(arrayFilter(x -> bitAnd(x, ${LOW_HALF}) != p AND ${entry} NOT IN (SELECT ${pairKey('p', 'f')} FROM (${callers.followees})),
                                            candidates), 1, ${params.fof.perFollowee})`;
  const kept =
    paths === 'all'
      ? unseen
      : sql`arrayFilter(x -> NOT (bitShiftRight(x, 32) = 1 AND ${entry} IN (SELECT ${pairKey('p', 'c')} FROM (${callers.followers}))), ${unseen})`;
  return sql`arrayMap(x -> toUInt32(bitAnd(x, ${LOW_HALF})), ${kept})`;
}

/**
 * Paths caller p <- f -> candidate c: someone who follows p (and whom p does not follow)
 * follows c too. Through p's followers who follow fewest (followerHopsSql), each passing on
 * its forward list; keyed
 * 1 << 62 | degree << 32 | f, so that a reason names a followee before a follower.
 */
function coFollowedSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  return sql`
    SELECT p, arrayJoin(${passedOnSql(callers, params, 'all')}) AS c, toUInt8(${signal}) AS signal, ${intermediaryWeightSql(sql`degree`)} AS part,
           bitShiftLeft(toUInt64(1), 62) + bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM (${callers.followerHops}) AS hops
    ALL INNER JOIN
    (
        SELECT f, candidates FROM mat_fof_forward
        WHERE snapshot_id = ${snapshotId} AND f IN (SELECT f FROM (${callers.followerHops}))
    ) AS forward USING f`;
}

/**
 * (p, f, degree): at most REC_FOF_VIA_FOLLOWERS of the callers' followers whom they do not
 * follow (a mutual follow's paths are the forward ones already), those who follow fewest
 * first (the most telling of them), then the lower dense id.
 */
export function followerHopsSql(snapshotId: number, callers: Pick<CallerFacts, 'followees' | 'followers'>, params: ScoringParams): SqlFragment {
  const followers = sql`SELECT p, c FROM (${callers.followers}) WHERE ${pairKey('p', 'c')} NOT IN (SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))`;
  return sql`
    SELECT p, toUInt32(bitAnd(hop, ${LOW_HALF})) AS f, toUInt32(bitShiftRight(hop, 32)) AS degree
    FROM
    (
        SELECT p, arrayJoin(arraySlice(arraySort(groupArray(bitShiftLeft(toUInt64(degree), 32) + f)), 1, ${params.fof.viaFollowers})) AS hop
        FROM (SELECT p, c AS f FROM (${followers})) AS following
        ALL INNER JOIN
        (
            SELECT src AS f, any(src_degree) AS degree FROM mat_follow_edges
            WHERE snapshot_id = ${snapshotId} AND src IN (SELECT c FROM (${followers}))
            GROUP BY src
        ) AS degrees USING f
        GROUP BY p
    )`;
}

/**
 * (p, f, degree): the followees a caller's friends of friends come through, at most
 * REC_FOF_VIA_FOLLOWEES: those who follow the caller back first (the closest ties), then
 * those who follow fewest (they weigh most), then the lower dense id. Followees who follow
 * nobody lead nowhere and take no place. Sorted per caller as an array of UInt64 keys:
 * (not following back) << 63 | degree << 32 | f.
 *
 * The nightly run writes everyone's into mat_first_hops (working-set.ts); an on-demand
 * computation uses it inline for one caller (cold-start.ts).
 */
export function firstHopsSql(snapshotId: number, callers: Pick<CallerFacts, 'followees' | 'followers'>, params: ScoringParams): SqlFragment {
  return sql`
    SELECT p, toUInt32(bitAnd(hop, ${LOW_HALF})) AS f, toUInt32(bitAnd(bitShiftRight(hop, 32), 2147483647)) AS degree
    FROM
    (
        SELECT p, arrayJoin(arraySlice(arraySort(groupArray(bitShiftLeft(toUInt64(1 - follows_back), 63)
                                                            + bitShiftLeft(toUInt64(followee_degree), 32) + f)), 1, ${params.fof.viaFollowees})) AS hop
        FROM
        (
            SELECT p, f, ${pairKey('p', 'f')} IN (SELECT ${pairKey('p', 'c')} FROM (${callers.followers})) AS follows_back
            FROM (${callers.followees})
        ) AS followed
        ALL INNER JOIN
        (
            SELECT src AS f, any(src_degree) AS followee_degree FROM mat_follow_edges
            WHERE snapshot_id = ${snapshotId} AND src IN (SELECT f FROM (${callers.followees}))
            GROUP BY src
        ) AS degrees USING f
        GROUP BY p
    )`;
}

/**
 * The paths back from a candidate c who follows the caller p: c's followers among its first
 * REC_FOF_PER_FOLLOWER (the most followed) whom p follows. Reciprocity is the strongest
 * evidence (docs/quality.md), and these paths find such candidates whatever the bounds of
 * the forward expansion, which leaves these paths to them (passedOnSql).
 *
 * Each of c's listed followers is one UInt64, f's degree << 32 | f, filtered inside the list
 * by whether p follows f: about one in ten is kept, and only those become rows.
 */
function pathsBackSql(snapshotId: number, callers: CallerFacts, signal: number): SqlFragment {
  const followed = sql`(SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))`;
  const followers = sql`SELECT p, c FROM (${callers.followers}) WHERE ${pairKey('p', 'c')} NOT IN ${followed}`;
  return sql`
    SELECT p, c, toUInt8(${signal}) AS signal, ${intermediaryWeightSql(sql`degree`)} AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM
    (
        SELECT p, c, toUInt32(bitAnd(via, ${LOW_HALF})) AS f, toUInt32(bitShiftRight(via, 32)) AS degree
        FROM
        (
            SELECT p, c, arrayJoin(arrayFilter(v -> (bitShiftLeft(toUInt64(p), 32) + bitAnd(v, ${LOW_HALF})) IN ${followed}, followers)) AS via
            FROM (${followers}) AS following_back
            ALL INNER JOIN
            (
                SELECT c, followers FROM mat_fof_back
                WHERE snapshot_id = ${snapshotId} AND c IN (SELECT c FROM (${callers.followers}))
            ) AS back USING c
        )
    )`;
}
