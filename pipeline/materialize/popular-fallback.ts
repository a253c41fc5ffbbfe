/**
 * The last resort of a bucket: a profile that follows someone but got no recommendation at
 * all (it follows only profiles that follow nobody, and no one follows it) is shown the
 * most followed profiles instead of an empty list. Each reads "Followed by <its most
 * followed follower>" (the fourth reason form), with a score far below any real evidence
 * (a millionth of ln(1 + followers)), so that paging and ranks work as for every list.
 *
 * Written after the bucket's INSERT, into the same partition: a retried bucket drops both.
 */
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, followerCountsSql, mostFollowedFirstKey } from './bounded-lists.ts';
import { RECOMMENDATION_COLUMNS } from './recommendation-columns.ts';
import { SIGNAL } from './candidates.ts';
import type { ScoringParams } from './scoring.ts';

/** How many more than REC_TOP_K popular profiles are kept, so that a caller's own followees can be left out. */
const SPARE = 200;

export function popularFallbackSql(snapshotId: number, bucket: number, buckets: number, params: ScoringParams): SqlFragment {
  const of = sql`snapshot_id = ${snapshotId}`;
  return sql`
    INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
    SELECT ${snapshotId}, ${bucket}, profile_id, rank, candidate_id, score, ${SIGNAL.fof}, 0, subject_id, 0, 0, 0, score
    FROM
    (
        SELECT profile_id, rank, candidate_id, score, subject_pid
        FROM
        (
            SELECT profile_id, rank, c, score, subject_pid
            FROM (${rankedSql(snapshotId, bucket, buckets, params)}) AS ranked
            ALL INNER JOIN (SELECT dst AS c, src AS subject_pid FROM mat_fof_edges WHERE ${of} AND src_rank = 1) AS most_followed_followers USING c
        ) AS with_subjects
        ALL INNER JOIN (SELECT pid AS c, profile_id AS candidate_id FROM mat_profiles WHERE ${of}) AS candidates USING c
    ) AS named
    ALL INNER JOIN (SELECT pid AS subject_pid, profile_id AS subject_id FROM mat_profiles WHERE ${of}) AS subjects USING subject_pid`;
}

/** (profile_id, rank, c, score): the bucket's listless followers' popular lists, without themselves and whom they follow. */
function rankedSql(snapshotId: number, bucket: number, buckets: number, params: ScoringParams): SqlFragment {
  const of = sql`snapshot_id = ${snapshotId}`;
  return sql`
    SELECT profile_id, rank, toUInt32(bitAnd(key, ${LOW_HALF})) AS c,
           round(log(1 + ${LOW_HALF} - bitShiftRight(key, 32)) * 0.000001, 9) AS score
    FROM
    (
        -- The popular list unrolled and filtered per caller, then sorted back (the keys sort
        -- the most followed first).
        SELECT profile_id, arraySlice(arraySort(groupArray(key)), 1, ${params.topK}) AS kept
        FROM
        (
            SELECT p, profile_id, followed, popular
            FROM
            (
                SELECT p, profile_id, followed
                FROM (SELECT src AS p, groupArray(dst) AS followed FROM mat_follow_edges WHERE ${of} AND src % ${buckets} = ${bucket} GROUP BY src) AS following
                ALL INNER JOIN (SELECT pid AS p, profile_id FROM mat_profiles WHERE ${of}) AS callers USING p
                WHERE profile_id NOT IN (SELECT profile_id FROM recommendations WHERE ${of} AND bucket = ${bucket})
            ) AS listless
            CROSS JOIN
            (
                SELECT arraySlice(arraySort(groupArray(${mostFollowedFirstKey('followers', 'dst')})), 1, ${params.topK + SPARE}) AS popular
                FROM (${followerCountsSql(snapshotId, 'dst')})
            ) AS most_followed
        )
        ARRAY JOIN popular AS key
        WHERE NOT has(followed, toUInt32(bitAnd(key, ${LOW_HALF}))) AND bitAnd(key, ${LOW_HALF}) != p
        GROUP BY profile_id
    )
    ARRAY JOIN kept AS key, arrayEnumerate(kept) AS rank`;
}
