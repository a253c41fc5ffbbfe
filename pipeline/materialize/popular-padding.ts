/**
 * The last step of a bucket: a profile whose list came out shorter than REC_TOP_K has it
 * filled up with the most followed profiles, after its own candidates: not itself, not whom
 * it follows, not one its list holds already. A profile with few follows has few friends of
 * friends, and for it popularity is the better guess than an empty place; a newcomer with
 * no evidence at all gets only these (docs/quality.md measures both).
 *
 * Each reads "Followed by <its most followed follower>" (the fourth reason form). Its score
 * is 0, as no signal speaks for it: ranks go on after the scored candidates (score > 0), so
 * paging and cursors work as for every list, and an analyst tells filler from evidence by
 * the score.
 *
 * Written after the bucket's INSERT, into the same partition: a retried bucket drops both.
 * The popular list itself is the run's, written once into the working set (mat_popular).
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, followerCountsSql, mostFollowedFirstKey } from './bounded-lists.ts';
import { pairKey } from './caller-facts.ts';
import { RECOMMENDATION_COLUMNS } from './recommendation-columns.ts';
import { SIGNAL } from './candidates.ts';
import type { ScoringParams } from './scoring.ts';

/** How many more than REC_TOP_K popular profiles are kept, so that a caller's own followees and candidates can be left out. */
const SPARE = 200;

/**
 * Whose lists to fill: the profiles (p, profile_id) whose rows a bucket holds (a nightly one,
 * bucket.ts, or the on-demand one, cold-start.ts), whom they follow (p, f), and whom their
 * lists hold already (p, c), by dense ids.
 */
export interface PaddingTarget {
  bucket: number;
  callers: SqlFragment;
  followees: SqlFragment;
  listed: SqlFragment;
}

export function popularPaddingSql(snapshotId: number, target: PaddingTarget, params: ScoringParams): SqlFragment {
  const of = sql`snapshot_id = ${snapshotId}`;
  // Names of the popular and their followers only, looked up by dense id (mat_profiles' order).
  const onlyPopular = (column: string) => sql`AND pid IN (SELECT ${identifier(column)} FROM mat_popular WHERE ${of})`;
  return sql`
    INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
    SELECT ${snapshotId}, ${target.bucket}, profile_id, rank, candidate_id, 0, ${SIGNAL.fof}, 0, subject_id, 0, 0, 0, 0
    FROM
    (
        SELECT profile_id, rank, candidate_id, subject_pid
        FROM
        (
            SELECT profile_id, rank, c, subject_pid
            FROM (${paddingSql(snapshotId, target, params)}) AS padding
            ALL INNER JOIN (SELECT pid AS c, subject_pid FROM mat_popular WHERE ${of}) AS most_followed_followers USING c
        ) AS with_subjects
        ALL INNER JOIN (SELECT pid AS c, profile_id AS candidate_id FROM mat_profiles WHERE ${of} ${onlyPopular('pid')}) AS candidates USING c
    ) AS named
    ALL INNER JOIN (SELECT pid AS subject_pid, profile_id AS subject_id FROM mat_profiles WHERE ${of} ${onlyPopular('subject_pid')}) AS subjects USING subject_pid`;
}

/**
 * mat_popular: the run's REC_TOP_K + SPARE most followed profiles, each with its most followed
 * follower (the mat_fof_edges row of dst pid with src_rank 1).
 */
export function popularListSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`
    INSERT INTO mat_popular (snapshot_id, place, pid, followers, subject_pid)
    SELECT ${snapshotId}, place, pid, followers, subject_pid
    FROM
    (
        SELECT place, toUInt32(bitAnd(key, ${LOW_HALF})) AS pid, toUInt32(${LOW_HALF} - bitShiftRight(key, 32)) AS followers
        FROM
        (
            SELECT arraySlice(arraySort(groupArray(${mostFollowedFirstKey('followers', 'dst')})), 1, ${params.topK + SPARE}) AS keys
            FROM (${followerCountsSql(snapshotId, 'dst')})
        )
        ARRAY JOIN keys AS key, arrayEnumerate(keys) AS place
    ) AS popular
    ALL INNER JOIN
    (
        SELECT dst AS pid, src AS subject_pid FROM mat_fof_edges WHERE snapshot_id = ${snapshotId} AND src_rank = 1
    ) AS most_followed_followers USING pid`;
}

/** (profile_id, rank, c): the places after each short list, filled from the popular list. */
function paddingSql(snapshotId: number, target: PaddingTarget, params: ScoringParams): SqlFragment {
  const shortLists = shortListsSql(snapshotId, target, params);
  const c = sql`bitAnd(key, ${LOW_HALF})`;
  return sql`
    SELECT profile_id, listed + place AS rank, toUInt32(${c}) AS c
    FROM
    (
        -- The popular list unrolled and filtered per caller, then sorted back.
        SELECT profile_id, listed, arraySlice(arraySort(groupArray(key)), 1, ${params.topK} - listed) AS kept
        FROM
        (
            SELECT p, profile_id, listed, popular
            FROM (${shortLists}) AS short_lists
            CROSS JOIN
            (
                -- place << 32 | pid: sorted, the most followed first.
                SELECT arraySort(groupArray(bitShiftLeft(toUInt64(place), 32) + pid)) AS popular
                FROM mat_popular WHERE snapshot_id = ${snapshotId} AND place <= ${params.topK + SPARE}
            ) AS most_followed
        )
        ARRAY JOIN popular AS key
        WHERE ${c} != p AND bitShiftLeft(toUInt64(p), 32) + ${c} NOT IN (${takenSql(target, shortLists)})
        GROUP BY profile_id, listed
    )
    ARRAY JOIN kept AS key, arrayEnumerate(kept) AS place`;
}

/**
 * (p, profile_id, listed): the target's profiles whose lists hold fewer than REC_TOP_K rows
 * (none, for one without a list), with how many they hold.
 */
function shortListsSql(snapshotId: number, target: PaddingTarget, params: ScoringParams): SqlFragment {
  return sql`
    SELECT p, profile_id, listed
    FROM (${target.callers}) AS callers
    ALL LEFT JOIN
    (
        SELECT profile_id, toUInt32(count()) AS listed FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND bucket = ${target.bucket} GROUP BY profile_id
    ) AS lists USING profile_id
    WHERE listed < ${params.topK}`;
}

/** Pairs p << 32 | c no filler may be: whom a short list's profile follows, and whom its list holds. */
function takenSql(target: PaddingTarget, shortLists: SqlFragment): SqlFragment {
  return sql`
    SELECT ${pairKey('p', 'f')} FROM (${target.followees})
    UNION ALL
    SELECT ${pairKey('p', 'c')} FROM (${target.listed}) WHERE p IN (SELECT p FROM (${shortLists}))`;
}
