/**
 * The second weight a run fits to its own follow graph (scoring-fit.ts has the first): what
 * the middle f of a friend-of-friend path weighs, by how many f follows (its degree d).
 * Adamic-Adar's 1 / ln(e + d) and resource allocation's 1 / d agree that a path through
 * someone who follows everybody says little; they disagree on how much: whether many paths
 * through busy profiles outweigh a few through quiet ones. Which ranks better depends on
 * the graph (docs/quality.md: resource allocation is ahead on ego-Facebook's friendships and
 * behind on Epinions' trust), so no constant serves every deployment.
 *
 * So the run asks its own follows. It holds out the newest tenth (at least one) of the
 * follows of up to REC_FIT_HELD_OUT profiles (heldOutFollowsSql), each with its return, ranks
 * every path of their candidates both ways on what is left, with the follows-you weight once for every follower (new
 * followers, whom the lists count twice, are not told apart: both weights rank followers alike), and
 * counts the held-out follows each ranking puts in its first REC_FIT_PLACES. It weighs by
 * resource allocation only when the follows that only it finds outnumber those only
 * Adamic-Adar finds by more than twice the square root of both together (a sign test at about
 * 95 %): otherwise Adamic-Adar, the weight of every run before this fit, so that where the
 * two are even the lists do not switch from one night to the next. Nothing in the test is
 * tuned to a graph; docs/materialization.md has the why.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF } from './bounded-lists.ts';
import { pairKey } from './caller-facts.ts';
import { followsYouWeightSql } from './scoring-fit.ts';
import { readRunRow } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';
import { followeesSql } from './signal-inputs.ts';
import { PATH_WEIGHTS, pathWeightOf } from './path-weight.ts';

/**
 * mat_held_out_follows: the profiles the fit samples, each with its newest tenth of its
 * follows, at least one, held out (follows at the same second ordered by a hash): more
 * held-out follows than profiles, so that a fit on a few thousand profiles can tell the
 * weights apart. The sample: profiles with at least two follows, in the order of a hash, as
 * many as REC_FIT_HELD_OUT and as the fit can rank every path of within REC_FIT_PATHS in all
 * (each with at most a hundredth of that, so that no one profile takes the sample). Not only
 * those that get every path in their lists: in a large world hardly any does. Written as a
 * table of its own because the fit reads it in several places, and ClickHouse works a
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

/** mat_path_weight_fit: the held-out follows, what each weight found of them, and the choice. */
export function pathWeightFitSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const { places } = params.pathFit;
  const edges = sql`mat_follow_edges WHERE snapshot_id = ${snapshotId}`;
  const heldOut = sql`SELECT p, t FROM mat_held_out_follows WHERE snapshot_id = ${snapshotId}`;
  const sampled = sql`SELECT p FROM mat_held_out_follows WHERE snapshot_id = ${snapshotId}`;
  const heldPairs = sql`(SELECT ${pairKey('p', 't')} FROM (${heldOut}))`;
  // Whom the sampled profiles still follow once their held-out follows are hidden.
  const stillFollowedRows = sql`${edges} AND src IN (${sampled}) AND ${pairKey('src', 'dst')} NOT IN ${heldPairs}`;
  const stillFollowed = sql`(SELECT ${pairKey('src', 'dst')} FROM ${stillFollowedRows})`;
  // Who still follows them: a held-out follow's return is held out with it, so that the
  // held-out profile is found through paths, where the two weights differ, and not as a
  // follower (which both rank alike).
  const stillFollowing = sql`${edges} AND dst IN (${sampled}) AND ${pairKey('dst', 'src')} NOT IN ${heldPairs}`;
  // Every path p -> f -> c and p <- f -> c of what is left (f not followed by p).
  const hops = sql`
    SELECT src AS p, dst AS f FROM ${stillFollowedRows}
    UNION ALL
    SELECT dst AS p, src AS f FROM ${stillFollowing} AND ${pairKey('dst', 'src')} NOT IN ${stillFollowed}`;
  const followsYou = sql`(${followsYouWeightSql(snapshotId, params)} + 0.000001)`;
  const evidence = sql`
    SELECT p, c, ${pathWeightOf('adamic-adar', sql`degree`)} AS adamic_adar, ${pathWeightOf('resource-allocation', sql`degree`)} AS resource_allocation
    FROM (${hops}) AS hops
    ALL INNER JOIN (SELECT src AS f, dst AS c, src_degree AS degree FROM ${edges} AND src IN (SELECT f FROM (${hops}))) AS onward USING f
    WHERE c != p AND ${pairKey('p', 'c')} NOT IN ${stillFollowed}
    UNION ALL
    SELECT dst AS p, src AS c, ${followsYou} AS adamic_adar, ${followsYou} AS resource_allocation
    FROM ${stillFollowing} AND ${pairKey('dst', 'src')} NOT IN ${stillFollowed}`;
  // A held-out follow is found when it is a candidate (every score is > 0) and fewer than
  // REC_FIT_PLACES others score more: that count is its place. Its score is read first, so
  // that the lambda captures a number, not the array (a captured column is copied for every element).
  const scoreOfHeldOut = (scores: string) => sql`if(indexOf(candidates, t) = 0, 0, ${identifier(scores)}[indexOf(candidates, t)])`;
  const place = (scores: string, held: string) => sql`if(${identifier(held)} = 0, ${places}, arrayCount(s -> s > ${identifier(held)}, ${identifier(scores)}))`;
  return sql`
    INSERT INTO mat_path_weight_fit (snapshot_id, held_out, found_adamic_adar, found_resource_allocation,
                                     only_adamic_adar, only_resource_allocation, path_weight)
    SELECT ${snapshotId}, count(), countIf(by_aa < ${places}), countIf(by_ra < ${places}),
           countIf(by_aa < ${places} AND by_ra >= ${places}) AS only_aa, countIf(by_ra < ${places} AND by_aa >= ${places}) AS only_ra,
           if(only_ra > only_aa + 2 * sqrt(only_ra + only_aa), 'resource-allocation', 'adamic-adar')
    FROM
    (
        SELECT ${place('adamic_adar', 'held_aa')} AS by_aa, ${place('resource_allocation', 'held_ra')} AS by_ra
        FROM
        (
            SELECT adamic_adar, resource_allocation,
                   ${scoreOfHeldOut('adamic_adar')} AS held_aa, ${scoreOfHeldOut('resource_allocation')} AS held_ra
            FROM (${heldOut}) AS held
            ALL LEFT JOIN
            (
                SELECT toUInt32(bitShiftRight(pair, 32)) AS p, groupArray(toUInt32(bitAnd(pair, ${LOW_HALF}))) AS candidates,
                       groupArray(adamic_adar) AS adamic_adar, groupArray(resource_allocation) AS resource_allocation
                FROM
                (
                    -- Rounded as the lists' scores are, so that float summation order never reorders near-ties.
                    SELECT ${pairKey('p', 'c')} AS pair, round(sum(adamic_adar), 9) AS adamic_adar, round(sum(resource_allocation), 9) AS resource_allocation
                    FROM (${evidence})
                    GROUP BY pair
                )
                GROUP BY p
            ) AS ranked USING p
        )
    )`;
}

const pathWeightFitRow = z.object({
  held_out: z.coerce.number(),
  found_adamic_adar: z.coerce.number(),
  found_resource_allocation: z.coerce.number(),
  only_adamic_adar: z.coerce.number(),
  only_resource_allocation: z.coerce.number(),
  path_weight: z.enum(PATH_WEIGHTS),
});
export type PathWeightFit = z.infer<typeof pathWeightFitRow>;

/** What the run measured and the weight it chose (for its log line). */
export async function readPathWeightFit(ch: ClickHouse, snapshotId: number): Promise<PathWeightFit | undefined> {
  return readRunRow(ch, 'mat_path_weight_fit', snapshotId, pathWeightFitRow);
}
