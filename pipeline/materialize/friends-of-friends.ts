/**
 * Signal 4's evidence, friends of friends, as rows (p, c, signal, part, key): one per path
 * caller p -> followee f -> candidate c, worth f's weight, keyed by f's degree << 32 | f so
 * that the smallest key names who follows fewest (then the lowest dense id).
 *
 * A caller with at most the run's paths per profile in all (path-budget.ts) gets every one of them:
 * each of its followees, and followers it does not follow, passes on everyone it follows. Any
 * other caller gets a sample of about that many (bounded-lists.ts), whatever the hubs: forward
 * through its first REC_FOF_VIA_FOLLOWEES followees, each passing on an equal share of
 * those paths (at least REC_FOF_PER_FOLLOWEE) of its most followed that the caller does not
 * follow yet; and back from each candidate who follows the caller through its
 * REC_FOF_PER_FOLLOWER most followed followers. A path both would find is counted back only.
 * docs/quality.md measures the choices.
 *
 * Both directions read per-profile lists of the working set (mat_fof_forward, mat_fof_back):
 * each caller row looks its list up once, instead of joining edge by edge (a join that
 * materialises every path before filtering them cost a bucket half as much again), and only
 * the lists of the profiles the callers touch are read, so a bucket's memory does not grow
 * with the world.
 */
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, forwardCandidate, forwardCountedBack, forwardMoment } from './bounded-lists.ts';
import { pathsPerProfileSql } from './path-budget.ts';
import { pathWeightSql } from './path-weight.ts';
import { pathRecencySql } from './path-recency.ts';
import { degreesSql, notFollowedBackSql, pairKey, type CallerFacts, type Follows } from './caller-facts.ts';
import type { ScoringParams } from './scoring.ts';

/** The callers the hops are worked out for: their follows, and (p) those of them who get every path (path-budget.ts). */
export type HopCallers = Follows & { exact: SqlFragment };

/**
 * People the caller follows follow the candidate: the forward paths, then the paths back. Each
 * path weighs its middle's weight (path-weight.ts) times its recency (path-recency.ts).
 */
export function friendsOfFriendsSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  return sql`
    SELECT p, ${forwardCandidate(sql`entry`)} AS c, toUInt8(${signal}) AS signal,
           ${pathPartSql(snapshotId, forwardMoment(sql`entry`))} AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM (SELECT p, f, degree, newest_moment, follows_anyone, arrayJoin(${passedOnSql(callers, 'without paths back')}) AS entry
          FROM (${withListsSql(snapshotId, callers, callers.firstHops, params)}))
    UNION ALL
    ${pathsBackSql(snapshotId, callers, signal)}
    UNION ALL
    ${coFollowedSql(snapshotId, callers, params, signal)}`;
}

/** A path's part of the score: its middle's weight by `degree`, times its recency for the caller whose row it is. */
function pathPartSql(snapshotId: number, moment: SqlFragment): SqlFragment {
  return sql`${pathWeightSql(snapshotId, sql`degree`)} * ${pathRecencySql(snapshotId, moment, sql`newest_moment`, sql`follows_anyone`)}`;
}

/**
 * (p, f, degree, exact, passes_on, candidates, newest_moment, follows_anyone): each hop with
 * the list it passes on from: its first REC_FOF_PASS_ON_DEPTH for a sampled caller, its whole
 * list for an exact one; and when the caller last followed anyone (0, 0 for a caller that
 * follows nobody). Two joins, so that a sampled caller's rows never carry a list deeper than it
 * reads. For one caller (an on-demand list) exact can come out a constant, which ClickHouse
 * 18.16 refuses to UNION ALL with a column ("Cannot convert column exact because it is non
 * constant"): materialize().
 */
function withListsSql(snapshotId: number, callers: CallerFacts, hops: SqlFragment, params: ScoringParams): SqlFragment {
  // The caller's newest follow joins the hops before their lists do, so that no list is copied through a second join.
  const lists = (exact: boolean, candidates: SqlFragment) => sql`
    SELECT p, f, degree, materialize(exact) AS exact, passes_on, newest_moment, follows_anyone, candidates
    FROM
    (
        SELECT p, f, degree, exact, passes_on, newest_moment, follows_anyone
        FROM (SELECT p, f, degree, exact, passes_on FROM (${hops}) WHERE exact = ${Number(exact)}) AS hops
        ALL LEFT JOIN (${callers.newestFollows}) AS newest USING p
    ) AS hops
    ALL INNER JOIN
    (
        SELECT f, ${candidates} AS candidates FROM mat_fof_forward
        WHERE snapshot_id = ${snapshotId} AND f IN (SELECT f FROM (${hops}) WHERE exact = ${Number(exact)})
    ) AS forward USING f`;
  return sql`
    ${lists(false, sql`arraySlice(candidates, 1, ${params.fof.passOnDepth})`)}
    UNION ALL
    ${lists(true, sql`candidates`)}`;
}

/**
 * The forward entries (bounded-lists.ts fofForwardSql) followee f (a row of withListsSql)
 * passes on to caller p: the first passes_on of those on its list but p and whom p follows (to
 * an exact caller, passes_on is all f follows). On a sampled caller's forward paths, those
 * less the ones a path back reaches: candidates who follow p and whose list of first
 * followers holds f (the entry's flag; pathsBackSql), so that no path counts twice. An exact
 * caller has no paths back: its forward paths are all of them.
 */
function passedOnSql(callers: CallerFacts, paths: 'without paths back' | 'all'): SqlFragment {
  const pair = sql`bitShiftLeft(toUInt64(p), 32) + ${forwardCandidate(sql`x`)}`;
  const unseen = sql`arraySlice(arrayFilter(x -> ${forwardCandidate(sql`x`)} != p AND ${pair} NOT IN (SELECT ${pairKey('p', 'f')} FROM (${callers.followees})),
                                            candidates), 1, passes_on)`;
  if (paths === 'all') return unseen;
  // exact is read outside the lambda: ClickHouse 18.16 does not see a column used only inside one, and drops it from the subquery.
  return sql`if(exact, ${unseen}, arrayFilter(x -> NOT (${forwardCountedBack(sql`x`)} AND ${pair} IN (SELECT ${pairKey('p', 'c')} FROM (${callers.followers}))), ${unseen}))`;
}

/**
 * Paths caller p <- f -> candidate c: someone who follows p (and whom p does not follow)
 * follows c too. Through p's follower hops (followerHopsSql), each passing on its forward
 * list; keyed 1 << 62 | degree << 32 | f, so that a reason names a followee before a follower.
 */
function coFollowedSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, signal: number): SqlFragment {
  return sql`
    SELECT p, ${forwardCandidate(sql`entry`)} AS c, toUInt8(${signal}) AS signal, ${pathPartSql(snapshotId, forwardMoment(sql`entry`))} AS part,
           bitShiftLeft(toUInt64(1), 62) + bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM (SELECT p, f, degree, newest_moment, follows_anyone, arrayJoin(${passedOnSql(callers, 'all')}) AS entry
          FROM (${withListsSql(snapshotId, callers, callers.followerHops, params)}))`;
}

/**
 * (p, f, degree, exact, passes_on): the callers' followers whom they do not follow (a mutual
 * follow's paths are the forward ones already): all of them for an exact caller, each passing
 * on all it follows; else at most REC_FOF_VIA_FOLLOWERS, those who follow fewest first (the
 * most telling of them), then the lower dense id, each passing on REC_FOF_PER_FOLLOWEE.
 */
export function followerHopsSql(snapshotId: number, callers: HopCallers, params: ScoringParams): SqlFragment {
  return sql`
    SELECT p, toUInt32(bitAnd(hop, ${LOW_HALF})) AS f, toUInt32(bitShiftRight(hop, 32)) AS degree, exact,
           toUInt32(if(exact, degree, ${params.fof.perFollowee})) AS passes_on
    FROM
    (
        SELECT p, p IN (${callers.exact}) AS exact,
               arraySort(groupArray(bitShiftLeft(toUInt64(degree), 32) + f)) AS hops,
               arrayJoin(if(exact, hops, arraySlice(hops, 1, ${params.fof.viaFollowers}))) AS hop
        FROM (SELECT p, c AS f FROM (${notFollowedBackSql(callers)})) AS following
        ALL INNER JOIN (${degreesSql(snapshotId, callers, sql`SELECT c FROM (${notFollowedBackSql(callers)})`)}) AS degrees USING f
        GROUP BY p
    )`;
}

/**
 * (p, f, degree, exact, passes_on): the followees a caller's friends of friends come through,
 * and how many each passes on. An exact caller (callers.exact): all of them, each passing on
 * all it follows. Any other: at most REC_FOF_VIA_FOLLOWEES, those who follow the caller back
 * first (the closest ties), then those who follow fewest (they weigh most), then the lower
 * dense id, each passing on an equal share of the run's paths per profile, at least
 * REC_FOF_PER_FOLLOWEE and at most REC_FOF_PASS_ON_DEPTH (the depth its list is searched to).
 * So a caller with one path more than that gets about that many, not a fixed few: the
 * sample's size is the cap's, not the hubs'. Followees who follow nobody lead nowhere and take no
 * place. Sorted per caller as an array of UInt64 keys: (not following back) << 63 |
 * degree << 32 | f.
 *
 * The nightly run writes everyone's into mat_first_hops (working-set.ts); an on-demand
 * computation uses it inline for one caller (cold-start.ts).
 */
export function firstHopsSql(snapshotId: number, callers: HopCallers, params: ScoringParams): SqlFragment {
  return sql`
    SELECT p, toUInt32(bitAnd(hop, ${LOW_HALF})) AS f, toUInt32(bitAnd(bitShiftRight(hop, 32), 2147483647)) AS degree, exact,
           toUInt32(if(exact, degree, share)) AS passes_on
    FROM
    (
        SELECT p, p IN (${callers.exact}) AS exact,
               arraySort(groupArray(bitShiftLeft(toUInt64(1 - follows_back), 63) + bitShiftLeft(toUInt64(followee_degree), 32) + f)) AS hops,
               -- A caller has at least one hop (grouped from its follows), so no division by 0.
               greatest(${params.fof.perFollowee}, least(${params.fof.passOnDepth}, intDiv(${pathsPerProfileSql(snapshotId, params)}, least(length(hops), ${params.fof.viaFollowees})))) AS share,
               arrayJoin(if(exact, hops, arraySlice(hops, 1, ${params.fof.viaFollowees}))) AS hop
        FROM
        (
            SELECT p, f, ${pairKey('p', 'f')} IN (SELECT ${pairKey('p', 'c')} FROM (${callers.followers})) AS follows_back
            FROM (${callers.followees})
        ) AS followed
        ALL INNER JOIN
        (
            SELECT f, degree AS followee_degree FROM (${degreesSql(snapshotId, callers, sql`SELECT f FROM (${callers.followees})`)})
        ) AS degrees USING f
        GROUP BY p
    )`;
}

/**
 * The paths back from a candidate c who follows the caller p: c's followers among its first
 * REC_FOF_PER_FOLLOWER (the most followed) whom p follows. Reciprocity is the strongest
 * evidence (docs/quality.md), and these paths find such candidates whatever the bounds of
 * the forward expansion, which leaves these paths to them (passedOnSql). Not for an exact
 * caller, whose forward paths are every path already.
 *
 * Each of c's listed followers is one UInt64, f's degree << 32 | f, paired with when f followed
 * c and filtered inside the list by whether p follows f: about one in ten is kept, and only
 * those become rows.
 */
function pathsBackSql(snapshotId: number, callers: CallerFacts, signal: number): SqlFragment {
  const followed = sql`(SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))`;
  const followers = sql`
    SELECT p, c, newest_moment, follows_anyone
    FROM (SELECT p, c FROM (${callers.followers})
          WHERE ${pairKey('p', 'c')} NOT IN ${followed} AND p NOT IN (SELECT p FROM (${callers.firstHops}) WHERE exact)) AS following_back
    ALL LEFT JOIN (${callers.newestFollows}) AS newest USING p`;
  // Each listed follower paired with its moment (a run before migration 051 has none: 0 each).
  const withMoments = sql`arrayMap((v, m) -> (v, m), followers, arrayResize(moments, length(followers)))`;
  return sql`
    SELECT p, c, toUInt8(${signal}) AS signal, ${pathPartSql(snapshotId, sql`moment`)} AS part, bitShiftLeft(toUInt64(degree), 32) + f AS key
    FROM
    (
        SELECT p, c, toUInt32(bitAnd(via.1, ${LOW_HALF})) AS f, toUInt32(bitShiftRight(via.1, 32)) AS degree, via.2 AS moment,
               newest_moment, follows_anyone
        FROM
        (
            SELECT p, c, newest_moment, follows_anyone,
                   arrayJoin(arrayFilter(v -> (bitShiftLeft(toUInt64(p), 32) + bitAnd(v.1, ${LOW_HALF})) IN ${followed}, ${withMoments})) AS via
            FROM (${followers}) AS following_back
            ALL INNER JOIN
            (
                SELECT c, followers, moments FROM mat_fof_back
                WHERE snapshot_id = ${snapshotId} AND c IN (SELECT c FROM (${callers.followers}))
            ) AS back USING c
        )
    )`;
}
