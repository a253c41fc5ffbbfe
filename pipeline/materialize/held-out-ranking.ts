/**
 * How a run asks its own follows which of two ways to weigh friend-of-friend paths ranks
 * better (path-weight-fit.ts: the middle's degree; path-recency.ts: when the path was made;
 * unnamed-paths-fit.ts: whether paths no reason can name reorder the first places).
 * It holds out the newest tenth (at least one) of the follows of a sample of profiles, each
 * with its return (heldOutFollowsSql), ranks every path of their candidates both ways on what
 * is left, with the follows-you weight once for every follower (new followers, whom the lists
 * count twice, are not told apart: both ways rank followers alike), and finds each held-out
 * follow's place under each (heldOutPlacesSql, for as many ways as a statement asks about).
 * Nothing in it is tuned to a graph; the decisions are sign tests over the follows one way
 * finds and the other does not.
 */
import { identifier, joinSql, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF } from './bounded-lists.ts';
import { pairKey, type Follows } from './caller-facts.ts';
import { followsYouWeightSql } from './scoring-fit.ts';
import type { ScoringParams } from './scoring.ts';
import { followeesSql } from './signal-inputs.ts';
import { neighboursSql, unnamedWeightsSql } from './unnamed-paths.ts';

/**
 * mat_held_out_follows: the profiles the fit samples, each with its newest tenth of its
 * follows, at least one, held out (follows at the same second ordered by a hash): more
 * held-out follows than profiles, so that a fit on a few thousand profiles can tell the
 * weights apart. The sample: profiles with at least two follows, in the order of a hash, as
 * many as REC_FIT_HELD_OUT and as the fit can rank every path of within REC_FIT_PATHS in all
 * (each with at most a hundredth of that, so that no one profile takes the sample). Not only
 * those that get every path in their lists: in a large world hardly any does. Written as a
 * table of its own because the fits read it in several places, and ClickHouse works a
 * subquery out again wherever it appears.
 */
export function heldOutFollowsSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const edges = sql`mat_follow_edges WHERE snapshot_id = ${snapshotId}`;
  const { heldOut, paths } = params.pathFit;
  const sampled = sql`
    SELECT arrayJoin(arraySlice(profiles, 1, least(${heldOut}, arrayCount(total -> total <= ${paths}, arrayCumSum(path_counts)))))
    FROM
    (
        SELECT arraySort((p, h) -> h, groupArray(p), groupArray(cityHash64(p))) AS profiles,
               arraySort((n, h) -> h, groupArray(paths), groupArray(cityHash64(p))) AS path_counts
        FROM mat_path_counts
        WHERE snapshot_id = ${snapshotId} AND paths <= intDiv(${paths}, 100)
          AND p IN (SELECT src FROM ${edges} AND src_degree >= 2)
    )`;
  const sampledIds = sql`SELECT profile_id, pid AS p FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND pid IN (${sampled})`;
  const newest = sql`bitShiftLeft(toUInt64(toUInt32(followed_at)), 32) + bitAnd(cityHash64(p, f), ${LOW_HALF})`;
  // GLOBAL: on a cluster follows is read through a Distributed table, whose shards would look
  // for mat_profiles in their default database; the set is built here and sent along.
  return sql`
    INSERT INTO mat_held_out_follows (snapshot_id, p, t)
    SELECT ${snapshotId}, p, arrayJoin(arraySlice(oldest_first, length(oldest_first) - intDiv(length(oldest_first) + 9, 10) + 1))
    FROM
    (
        SELECT p, arraySort((f, key) -> key, groupArray(f), groupArray(${newest})) AS oldest_first
        FROM (${followeesSql(snapshotId, sampledIds, sql`follower_profile_id GLOBAL IN (SELECT profile_id FROM (${sampledIds}))`)})
        GROUP BY p
    )`;
}

/**
 * Ways of weighing a path, by name, as expressions over a path's columns: `degree` (how many
 * its middle follows), `moment` (when its middle followed the candidate, path-recency.ts), and
 * the sampled profile's `newest_moment` (of its newest follow left) and `follows_anyone`.
 */
export type PathScores<Name extends string> = Record<Name, SqlFragment>;

/** One column (or more) per way `names` names, comma-separated. */
function perWay<Name extends string>(names: readonly Name[], column: (name: Name) => SqlFragment): SqlFragment {
  return joinSql(names.map(column), ', ');
}

/** by_<name> per held-out follow, for each way: how many candidates score more under it (REC_FIT_PLACES where it is no candidate). */
export type HeldOutPlaces = SqlFragment;

/**
 * The held-out follows' places under every way of `scores` at once: the paths are found and
 * summed per candidate once, whatever the number of ways (finding them is a fit's work).
 */
export function heldOutPlacesSql<Name extends string>(snapshotId: number, params: ScoringParams, scores: PathScores<Name>): HeldOutPlaces {
  const { heldOut, heldPairs, pairs } = heldOutRankingSql(snapshotId, params, scores, 'returns held out');
  return placesAmongSql(params, { heldOut, heldPairs }, pairs, Object.keys(scores) as Name[]);
}

/**
 * (p, t, by_<name> for each of `names`): each held-out follow's place among `pairs` (pair:
 * p << 32 | candidate, score_<name> for each way); REC_FIT_PLACES where it is none of them.
 *
 * A place is counted among the profile's REC_FIT_PLACES best scores only, so it is at most
 * REC_FIT_PLACES: a fit asks only whether a follow comes before that place, and a held-out
 * follow with fewer candidates above it has every one of them among those best. So no
 * profile's whole list of candidates (thousands) is copied for each of its held-out follows.
 */
function placesAmongSql<Name extends string>(
  params: ScoringParams,
  held: { heldOut: SqlFragment; heldPairs: SqlFragment },
  pairs: SqlFragment,
  names: readonly Name[],
): HeldOutPlaces {
  const each = (column: (name: Name) => SqlFragment) => perWay(names, column);
  const places = params.pathFit.places;
  // Per sampled profile: each way's best REC_FIT_PLACES scores, and its held-out follows
  // among its candidates with their scores.
  const perProfile = sql`
    SELECT toUInt32(bitShiftRight(pair, 32)) AS p,
           groupArrayIf(toUInt32(bitAnd(pair, ${LOW_HALF})), held) AS held_candidates,
           ${each((n) => sql`arraySlice(arrayReverseSort(groupArray(${identifier(`score_${n}`)})), 1, ${places}) AS ${identifier(`best_${n}`)},
           groupArrayIf(${identifier(`score_${n}`)}, held) AS ${identifier(`held_scores_${n}`)}`)}
    FROM (SELECT *, pair IN ${held.heldPairs} AS held FROM (${pairs}))
    GROUP BY p`;
  const found = sql`
    SELECT p, t, ${each((n) => sql`toUInt32(arrayCount(s -> s > ${identifier(`held_${n}`)}, ${identifier(`best_${n}`)})) AS ${identifier(`by_${n}`)}`)}
    FROM (${perProfile})
    ARRAY JOIN held_candidates AS t, ${each((n) => sql`${identifier(`held_scores_${n}`)} AS ${identifier(`held_${n}`)}`)}`;
  // A held-out follow that is no candidate of its profile places REC_FIT_PLACES.
  return sql`
    SELECT p, t, ${each((n) => sql`if(listed, ${identifier(`by_${n}`)}, ${places}) AS ${identifier(`by_${n}`)}`)}
    FROM (${held.heldOut}) AS held
    ALL LEFT JOIN (SELECT *, toUInt8(1) AS listed FROM (${found})) AS found USING p, t`;
}

/**
 * The sampled profiles' candidates scored on what is left once their held-out follows are
 * hidden: `pairs` is (pair: p << 32 | candidate, score_<name> for each way).
 */
function heldOutRankingSql<Name extends string>(snapshotId: number, params: ScoringParams, scores: PathScores<Name>, returns: 'returns held out' | 'returns kept') {
  const each = (column: (name: Name) => SqlFragment) => perWay(Object.keys(scores) as Name[], column);
  const edges = sql`mat_follow_edges WHERE snapshot_id = ${snapshotId}`;
  const heldOut = sql`SELECT p, t FROM mat_held_out_follows WHERE snapshot_id = ${snapshotId}`;
  const sampled = sql`SELECT p FROM mat_held_out_follows WHERE snapshot_id = ${snapshotId}`;
  const heldPairs = sql`(SELECT ${pairKey('p', 't')} FROM (${heldOut}))`;
  // Whom the sampled profiles still follow once their held-out follows are hidden.
  const stillFollowedRows = sql`${edges} AND src IN (${sampled}) AND ${pairKey('src', 'dst')} NOT IN ${heldPairs}`;
  const stillFollowed = sql`(SELECT ${pairKey('src', 'dst')} FROM ${stillFollowedRows})`;
  // Who still follows them: a held-out follow's return is held out with it, so that the
  // held-out profile is found through paths, where the ways differ, and not as a follower
  // (which every way ranks alike). Not where the ranking is reordered with unnamed paths:
  // those rank followers and the rest apart, and a profile that follows back finds its
  // follower there.
  const stillFollowing =
    returns === 'returns kept'
      ? sql`${edges} AND dst IN (${sampled})`
      : sql`${edges} AND dst IN (${sampled}) AND ${pairKey('dst', 'src')} NOT IN ${heldPairs}`;
  // Every path p -> f -> c and p <- f -> c of what is left (f not followed by p), onward too:
  // a sampled f's own held-out follows are hidden from every path through it, as the newest
  // follows of everyone are unknown when a profile makes its next one.
  const hops = sql`
    SELECT src AS p, dst AS f FROM ${stillFollowedRows}
    UNION ALL
    SELECT dst AS p, src AS f FROM ${stillFollowing} AND ${pairKey('dst', 'src')} NOT IN ${stillFollowed}`;
  const newest = sql`SELECT src AS p, max(moment) AS newest_moment, toUInt8(1) AS follows_anyone FROM ${stillFollowedRows} GROUP BY src`;
  const followsYou = sql`(${followsYouWeightSql(snapshotId, params)} + 0.000001)`;
  const evidence = sql`
    SELECT p, c, ${each((n) => sql`${scores[n]} AS ${identifier(`score_${n}`)}`)}
    FROM
    (
        SELECT p, c, degree, moment
        FROM (${hops}) AS hops
        ALL INNER JOIN (SELECT src AS f, dst AS c, src_degree AS degree, moment FROM ${edges} AND src IN (SELECT f FROM (${hops})) AND ${pairKey('src', 'dst')} NOT IN ${heldPairs}) AS onward USING f
        WHERE c != p AND ${pairKey('p', 'c')} NOT IN ${stillFollowed}
    ) AS paths
    ALL LEFT JOIN (${newest}) AS newest USING p
    UNION ALL
    SELECT dst AS p, src AS c, ${each((n) => sql`${followsYou} AS ${identifier(`score_${n}`)}`)}
    FROM ${stillFollowing} AND ${pairKey('dst', 'src')} NOT IN ${stillFollowed}`;
  // Rounded as the lists' scores are, so that float summation order never reorders near-ties.
  const pairs = sql`
    SELECT ${pairKey('p', 'c')} AS pair, ${each((n) => sql`round(sum(${identifier(`score_${n}`)}), 9) AS ${identifier(`score_${n}`)}`)}
    FROM (${evidence})
    GROUP BY pair`;
  const left: Follows = { followees: sql`SELECT src AS p, dst AS f FROM ${stillFollowedRows}`, followers: sql`SELECT dst AS p, src AS c FROM ${stillFollowing}` };
  return { heldOut, heldPairs, edges, pairs, left };
}

/**
 * The held-out follows' places under `score` (by_a), and under it with each profile's first
 * REC_TOP_K reordered with the unnamed paths (unnamed-paths.ts) through what is left of the
 * profile's follows (by_b: whom it still follows and who still follows it; the held-out
 * follows are hidden from the candidates' follows too), as the lists do where the run chose
 * them. The returns of the held-out follows stay: reordering ranks followers and the rest apart.
 * Only the first REC_TOP_K under `score` are kept (ties at the last place with them): a
 * held-out follow below them has at least REC_TOP_K candidates above it either way (more than
 * REC_FIT_PLACES), and one among them has the same place among them as among all.
 */
export function reorderedHeldOutPlacesSql(snapshotId: number, params: ScoringParams, score: SqlFragment): HeldOutPlaces {
  const { heldOut, heldPairs, edges, pairs, left } = heldOutRankingSql(snapshotId, params, { named: score }, 'returns kept');
  // Every profile here is a sampled one: heldOutRankingSql ranks only theirs.
  const first = sql`
    SELECT p, c, a
    FROM
    (
        SELECT p, arrayReverseSort(scores)[${params.topK}] AS last_kept,
               arrayFilter((c, a) -> a >= last_kept, candidates, scores) AS first_candidates,
               arrayFilter(a -> a >= last_kept, scores) AS first_scores
        FROM
        (
            SELECT toUInt32(bitShiftRight(pair, 32)) AS p, groupArray(toUInt32(bitAnd(pair, ${LOW_HALF}))) AS candidates, groupArray(score_named) AS scores
            FROM (${pairs})
            GROUP BY p
        )
    )
    ARRAY JOIN first_candidates AS c, first_scores AS a`;
  const weighed = unnamedWeightsSql(
    first,
    neighboursSql(snapshotId, left),
    sql`${edges} AND ${pairKey('src', 'dst')} NOT IN ${heldPairs}`,
  );
  const reordered = placesAmongSql(
    params,
    { heldOut, heldPairs },
    sql`SELECT ${pairKey('p', 'c')} AS pair, a AS score_named, a + u AS score_unnamed FROM (${weighed})`,
    ['named', 'unnamed'],
  );
  return sql`SELECT by_named AS by_a, by_unnamed AS by_b FROM (${reordered})`;
}

/**
 * Whether the held-out follows only one way finds (`more`, a column) outnumber those only the
 * other finds (`fewer`) beyond chance: by more than twice the square root of both together,
 * a sign test at about 95 %. The fits' one rule.
 */
export function beyondChanceSql(more: string, fewer: string): SqlFragment {
  return sql`${identifier(more)} > ${identifier(fewer)} + 2 * sqrt(${identifier(more)} + ${identifier(fewer)})`;
}

/**
 * (held_out, found_a, found_b, only_a, only_b) of two weighings whose places are `a` and `b`,
 * expressions over the columns of mat_held_out_places (held-out-places.ts).
 */
export function heldOutFitCountsSql(snapshotId: number, params: ScoringParams, a: SqlFragment, b: SqlFragment): SqlFragment {
  return placesCountedSql(params, sql`SELECT ${a} AS by_a, ${b} AS by_b FROM mat_held_out_places WHERE snapshot_id = ${snapshotId}`);
}

/** (held_out, found_a, found_b, only_a, only_b): what two ways (their places by_a and by_b) found of the held-out follows. */
export function placesCountedSql(params: ScoringParams, places: SqlFragment): SqlFragment {
  const first = params.pathFit.places;
  return sql`
    SELECT count() AS held_out, countIf(by_a < ${first}) AS found_a, countIf(by_b < ${first}) AS found_b,
           countIf(by_a < ${first} AND by_b >= ${first}) AS only_a, countIf(by_b < ${first} AND by_a >= ${first}) AS only_b
    FROM (${places})`;
}

