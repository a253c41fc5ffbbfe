/**
 * The capped lists that bound how far a profile's candidates fan out, written once per run
 * into the working set so that every bucket joins a small table instead of the whole graph.
 *
 * Counting every friend-of-friend path costs Σ in-degree × out-degree, which power-law hubs
 * make huge; counting every co-holder pair of a collection costs holders². Instead:
 *
 * - each followee passes on its share of the run's paths per profile (path-budget.ts; at least
 *   REC_FOF_PER_FOLLOWEE) of the profiles it follows, the most followed ones (a followee's
 *   followees that many others follow are the likeliest next follows: measured on soc-Epinions
 *   against keeping the rarest, random ones, or mutual ones) that the caller does not follow
 *   yet, found among its first REC_FOF_PASS_ON_DEPTH: which ones depends on the caller, so
 *   the list kept here is that deep and each caller's slice is cut when it is read
 *   (friends-of-friends.ts); deeper for the callers with few enough paths to get every one
 *   (passOnListDepth);
 * - a candidate who follows the caller is also reached through at most REC_FOF_PER_FOLLOWER of
 *   its own followers, the most followed ones: the callers most likely follow those;
 * - each collection recommends at most REC_NFT_CANDIDATES_PER_COLLECTION of its holders, the
 *   most followed ones.
 *
 * "Most followed" ties go to the lower dense id, so every list is deterministic. Ranks come
 * from sorting each list as an array of UInt64 keys (no window functions on ClickHouse 18.16):
 * (2^32 - 1 - followers) in the high half sorts the most followed first, the dense id in
 * the low half breaks ties and is read back with a mask.
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { pathsPerProfileSql } from './path-budget.ts';
import { pathWeightOf } from './path-weight.ts';
import type { ScoringParams } from './scoring.ts';

/** Masks the low 32 bits of a UInt64 key (where a dense id sits). */
export const LOW_HALF = 4_294_967_295;

/** mat_follower_counts: how many follow each profile that anyone follows, counted once per run. */
export function followerCountsTableSql(snapshotId: number): SqlFragment {
  return sql`
    INSERT INTO mat_follower_counts (snapshot_id, pid, followers)
    SELECT ${snapshotId}, dst, toUInt32(count()) FROM mat_follow_edges WHERE snapshot_id = ${snapshotId} GROUP BY dst`;
}

/** (<key>, followers) of mat_follower_counts, keyed by the column name a join uses. */
export function followerCountsSql(snapshotId: number, key: string): SqlFragment {
  return sql`SELECT pid AS ${identifier(key)}, followers FROM mat_follower_counts WHERE snapshot_id = ${snapshotId}`;
}

/** A UInt64 that sorts the most followed first, then the lower dense id. */
export function mostFollowedFirstKey(followers: string, pid: string): SqlFragment {
  return sql`bitShiftLeft(toUInt64(${LOW_HALF} - ${identifier(followers)}), 32) + ${identifier(pid)}`;
}

/**
 * How far down its most-followed list each followee's list is kept: REC_FOF_PASS_ON_DEPTH for
 * the sampled callers, and whole for the followees of a caller who gets every path, who follow
 * at most the run's paths per profile each (path-budget.ts).
 */
function passOnListDepthSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`greatest(${params.fof.passOnDepth}, ${pathsPerProfileSql(snapshotId, params)})`;
}

/** mat_fof_edges: every follow edge within passOnListDepth of its src's list or REC_FOF_PER_FOLLOWER of its dst's. */
export function fofEdgesSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const { perFollower } = params.fof;
  const passOnDepth = passOnListDepthSql(snapshotId, params);
  const byKey = (value: SqlFragment) => sql`arraySort((x, k) -> k, groupArray(${value}), groupArray(${mostFollowedFirstKey('src_followers', 'src')}))`;
  return sql`
    INSERT INTO mat_fof_edges (snapshot_id, src, dst, src_degree, src_weight, dst_rank, src_rank, moment)
    SELECT ${snapshotId}, src, dst, src_degree, ${pathWeightOf('adamic-adar', sql`src_degree`)}, dst_rank, src_rank, moment
    FROM
    (
        -- Each follower's place among the followers of dst (payload: dst_rank, src_degree).
        SELECT dst, bitAnd(key, ${LOW_HALF}) AS src, bitShiftRight(payload, 32) AS dst_rank,
               bitAnd(payload, ${LOW_HALF}) AS src_degree, src_rank, moment
        FROM
        (
            SELECT dst, arraySort(groupArray(${mostFollowedFirstKey('src_followers', 'src')})) AS keys,
                   ${byKey(sql`bitShiftLeft(toUInt64(dst_rank), 32) + src_degree`)} AS payloads, ${byKey(sql`moment`)} AS moments
            FROM (${followeeRanksSql(snapshotId)})
            GROUP BY dst
        )
        ARRAY JOIN keys AS key, payloads AS payload, moments AS moment, arrayEnumerate(keys) AS src_rank
    )
    WHERE dst_rank <= ${passOnDepth} OR src_rank <= ${perFollower}`;
}

/** Every follow edge (src, dst, dst_rank, src_degree, src_followers, moment): dst's place among src's followees. */
function followeeRanksSql(snapshotId: number): SqlFragment {
  const byKey = (value: SqlFragment) => sql`arraySort((x, k) -> k, groupArray(${value}), groupArray(${mostFollowedFirstKey('dst_followers', 'dst')}))`;
  return sql`
    SELECT src, bitAnd(key, ${LOW_HALF}) AS dst, dst_rank, followees AS src_degree, src_followers, moment
    FROM
    (
        SELECT src, any(src_degree) AS followees, arraySort(groupArray(${mostFollowedFirstKey('dst_followers', 'dst')})) AS keys,
               ${byKey(sql`moment`)} AS moments
        FROM
        (
            SELECT src, dst, src_degree, followers AS dst_followers, moment
            FROM (SELECT src, dst, src_degree, moment FROM mat_follow_edges WHERE snapshot_id = ${snapshotId}) AS edges
            ALL LEFT JOIN (${followerCountsSql(snapshotId, 'dst')}) AS counts USING dst
        )
        GROUP BY src
    )
    ARRAY JOIN keys AS key, moments AS moment, arrayEnumerate(keys) AS dst_rank
    ALL LEFT JOIN (SELECT src, followers AS src_followers FROM (${followerCountsSql(snapshotId, 'src')})) AS counts USING src`;
}

/**
 * mat_fof_forward: each followee's first passOnListDepth followees in the order it passes
 * them on (mat_fof_edges' dst_rank), for the forward paths (friends-of-friends.ts), each
 * packed as moment << 48 | (src is among dst's first REC_FOF_PER_FOLLOWER followers) << 32 |
 * dst: the moment weighs the path by when it was made (path-recency.ts), and when dst
 * follows a bounded caller who follows src, the path back counts that path instead.
 */
export function fofForwardSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const { perFollower } = params.fof;
  const passOnDepth = passOnListDepthSql(snapshotId, params);
  const entry = sql`bitShiftLeft(toUInt64(moment), 48) + bitShiftLeft(toUInt64(src_rank <= ${perFollower}), 32) + dst`;
  return sql`
    INSERT INTO mat_fof_forward (snapshot_id, f, candidates)
    SELECT ${snapshotId}, src, arraySort((entry, rank) -> rank, groupArray(${entry}), groupArray(dst_rank))
    FROM mat_fof_edges
    WHERE snapshot_id = ${snapshotId} AND dst_rank <= ${passOnDepth}
    GROUP BY src`;
}

/** A forward entry's candidate (its dense id). */
export function forwardCandidate(entry: SqlFragment): SqlFragment {
  return sql`toUInt32(bitAnd(${entry}, ${LOW_HALF}))`;
}

/** Whether a forward entry's path is counted back instead (for a bounded caller the candidate follows). */
export function forwardCountedBack(entry: SqlFragment): SqlFragment {
  return sql`bitTest(${entry}, 32)`;
}

/** A forward entry's moment: when its followee followed the candidate. */
export function forwardMoment(entry: SqlFragment): SqlFragment {
  return sql`toUInt16(bitShiftRight(${entry}, 48))`;
}

/**
 * mat_fof_back: each followee's list of its first followers (mat_fof_edges' src_rank), for
 * the paths back (friends-of-friends.ts), each packed as degree << 32 | src, and when each
 * followed it (moments, in the same order).
 */
export function fofBackSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`
    INSERT INTO mat_fof_back (snapshot_id, c, followers, moments)
    SELECT ${snapshotId}, dst, groupArray(bitShiftLeft(toUInt64(src_degree), 32) + src), groupArray(moment)
    FROM mat_fof_edges
    WHERE snapshot_id = ${snapshotId} AND src_rank <= ${params.fof.perFollower}
    GROUP BY dst`;
}

/** mat_collection_candidates: each eligible collection's first REC_NFT_CANDIDATES_PER_COLLECTION holders. */
export function collectionCandidatesSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`
    INSERT INTO mat_collection_candidates (snapshot_id, collection, pid, holder_rank)
    SELECT ${snapshotId}, collection, bitAnd(key, ${LOW_HALF}), holder_rank
    FROM
    (
        SELECT collection, arraySlice(arraySort(groupArray(${mostFollowedFirstKey('followers', 'pid')})), 1, ${params.nftCandidatesPerCollection}) AS keys
        FROM
        (
            SELECT collection, pid, followers
            FROM (SELECT collection, pid FROM mat_collection_holders WHERE snapshot_id = ${snapshotId}) AS holders
            ALL LEFT JOIN (${followerCountsSql(snapshotId, 'pid')}) AS counts USING pid
        )
        GROUP BY collection
    )
    ARRAY JOIN keys AS key, arrayEnumerate(keys) AS holder_rank`;
}
