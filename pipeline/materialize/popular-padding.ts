/**
 * The last step of a bucket: a profile in the app's follow graph (it follows someone or
 * someone follows it) whose list came out shorter than REC_TOP_K has it filled up with the
 * most followed profiles, after its own candidates: not itself, not whom it follows, not
 * one its list holds already. A profile with few follows has few friends of friends, and
 * for it popularity is the better guess than an empty place (docs/quality.md: one user in
 * four on one-way Epinions had fewer than 50 candidates); a profile with no evidence at all
 * gets only these.
 *
 * Each reads "Followed by <its most followed follower>" (the fourth reason form). Its score
 * is 0, as no signal speaks for it: ranks go on after the scored candidates (score > 0), so
 * paging and cursors work as for every list, and an analyst tells filler from evidence by
 * the score.
 *
 * Written after the bucket's INSERT, into the same partition: a retried bucket drops both.
 */
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, followerCountsSql, mostFollowedFirstKey } from './bounded-lists.ts';
import { RECOMMENDATION_COLUMNS } from './recommendation-columns.ts';
import { SIGNAL } from './candidates.ts';
import type { ScoringParams } from './scoring.ts';

/** How many more than REC_TOP_K popular profiles are kept, so that a caller's own followees and candidates can be left out. */
const SPARE = 200;

export function popularPaddingSql(snapshotId: number, bucket: number, buckets: number, params: ScoringParams): SqlFragment {
  const of = sql`snapshot_id = ${snapshotId}`;
  return sql`
    INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
    SELECT ${snapshotId}, ${bucket}, profile_id, rank, candidate_id, 0, ${SIGNAL.fof}, 0, subject_id, 0, 0, 0, 0
    FROM
    (
        SELECT profile_id, rank, candidate_id, subject_pid
        FROM
        (
            SELECT profile_id, rank, c, subject_pid
            FROM (${paddingSql(snapshotId, bucket, buckets, params)}) AS padding
            ALL INNER JOIN (SELECT dst AS c, src AS subject_pid FROM mat_fof_edges WHERE ${of} AND src_rank = 1) AS most_followed_followers USING c
        ) AS with_subjects
        ALL INNER JOIN (SELECT pid AS c, profile_id AS candidate_id FROM mat_profiles WHERE ${of}) AS candidates USING c
    ) AS named
    ALL INNER JOIN (SELECT pid AS subject_pid, profile_id AS subject_id FROM mat_profiles WHERE ${of}) AS subjects USING subject_pid`;
}

/** (profile_id, rank, c): the places after each short list, filled from the popular list. */
function paddingSql(snapshotId: number, bucket: number, buckets: number, params: ScoringParams): SqlFragment {
  return sql`
    SELECT profile_id, listed + place AS rank, toUInt32(bitAnd(key, ${LOW_HALF})) AS c
    FROM
    (
        -- The popular list unrolled and filtered per caller, then sorted back (the keys sort
        -- the most followed first).
        SELECT profile_id, listed, arraySlice(arraySort(groupArray(key)), 1, ${params.topK} - listed) AS kept
        FROM
        (
            SELECT profile_id, listed, excluded, popular
            FROM (${shortListsSql(snapshotId, bucket, buckets, params)}) AS short_lists
            CROSS JOIN
            (
                SELECT arraySlice(arraySort(groupArray(${mostFollowedFirstKey('followers', 'dst')})), 1, ${params.topK + SPARE}) AS popular
                FROM (${followerCountsSql(snapshotId, 'dst')})
            ) AS most_followed
        )
        ARRAY JOIN popular AS key
        WHERE NOT has(excluded, toUInt32(bitAnd(key, ${LOW_HALF})))
        GROUP BY profile_id, listed
    )
    ARRAY JOIN kept AS key, arrayEnumerate(kept) AS place`;
}

/**
 * (profile_id, listed, excluded): the bucket's profiles in the follow graph whose lists hold
 * fewer than REC_TOP_K rows (none, for one without a list), with how many they hold, and the
 * dense ids no filler may be: the profile itself, whom it follows, and its listed candidates.
 */
function shortListsSql(snapshotId: number, bucket: number, buckets: number, params: ScoringParams): SqlFragment {
  const of = sql`snapshot_id = ${snapshotId}`;
  const lists = sql`recommendations WHERE ${of} AND bucket = ${bucket}`;
  return sql`
    SELECT profile_id, length(shown) AS listed, arrayConcat([p], followed, shown) AS excluded
    FROM
    (
        SELECT p, profile_id, followed
        FROM
        (
            SELECT p, groupArrayIf(f, f != p) AS followed
            FROM
            (
                SELECT src AS p, dst AS f FROM mat_follow_edges WHERE ${of} AND src % ${buckets} = ${bucket}
                UNION ALL
                -- Followed but following nobody: in the graph all the same, with nobody to leave out.
                SELECT dst AS p, dst AS f FROM mat_follow_edges WHERE ${of} AND dst % ${buckets} = ${bucket}
            )
            GROUP BY p
        ) AS in_graph
        ALL INNER JOIN (SELECT pid AS p, profile_id FROM mat_profiles WHERE ${of}) AS callers USING p
        WHERE profile_id NOT IN (SELECT profile_id FROM ${lists} GROUP BY profile_id HAVING count() >= ${params.topK})
    ) AS callers
    ALL LEFT JOIN
    (
        SELECT profile_id, groupArray(c) AS shown
        FROM (SELECT profile_id, candidate_id FROM ${lists} AND profile_id IN (SELECT profile_id FROM ${lists} GROUP BY profile_id HAVING count() < ${params.topK})) AS listed
        ALL INNER JOIN (SELECT profile_id AS candidate_id, pid AS c FROM mat_profiles WHERE ${of}) AS candidates USING candidate_id
        GROUP BY profile_id
    ) AS lists USING profile_id`;
}
