/**
 * The recommender itself, as one SELECT: the four signals' candidates for a set of callers,
 * combined into one score, the already-followed and the caller removed, ranked with
 * deterministic tie-breaking and cut to the top K; and, apart, the names the ranked rows
 * show (namedCandidatesSql).
 *
 * The callers' own facts come in as relations (CallerFacts): the nightly bucket passes its
 * slice of the working set, an on-demand computation passes one profile's live facts. The
 * rest of the graph always comes from the snapshot's working set.
 *
 * Ranked rows: p (caller's dense id), rank, c (candidate's dense id), score, reason_kind
 * (1..4), reason_chain_id, subject_pid, subject_collection, and the four signal scores.
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { LOW_HALF, followerCountsSql, mostFollowedFirstKey } from './bounded-lists.ts';
import { pairKey, type CallerFacts } from './caller-facts.ts';
import { friendsOfFriendsSql } from './friends-of-friends.ts';
import type { ScoringParams } from './scoring.ts';
import { followsYouWeightSql } from './scoring-fit.ts';
import { neighboursSql, unnamedWeightsSql } from './unnamed-paths.ts';


/** reason_kind values, as in the recommendations table's Enum8. */
export const SIGNAL = { social: 1, counterparty: 2, nft: 3, fof: 4 } as const;

/**
 * `unnamed`: whether the snapshot's lists count unnamed paths (unnamed-paths.ts
 * unnamedPathsChosen), which reorder each list's first REC_TOP_K once it is cut.
 */
export function rankedCandidatesSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, unnamed: boolean): SqlFragment {
  const cut = firstRankedSql(snapshotId, callers, params);
  return sql`
    SELECT p, rank, toUInt32(bitAnd(r.2, ${LOW_HALF})) AS c, -r.1 AS score, r.3 AS reason_kind, r.4 AS reason_chain_id,
           r.5 AS subject_pid, r.6 AS subject_collection,
           r.7 AS social_score, r.8 AS counterparty_score, r.9 AS nft_score, r.10 AS fof_score
    FROM (${unnamed ? withUnnamedPathsSql(snapshotId, callers, params, cut) : cut})
    ARRAY JOIN ranked AS r, arrayEnumerate(ranked) AS rank`;
}

/** (p, ranked): each caller's first REC_TOP_K candidates as tuples, best first. */
function firstRankedSql(snapshotId: number, callers: CallerFacts, params: ScoringParams): SqlFragment {
  return sql`
    -- Ranks 1..K without window functions: sort each caller's list as an array, by
    -- score, then the more followed, then the candidate (cheaper than ORDER BY ...
    -- LIMIT K BY over every pair). The second element holds the candidate, so it is
    -- unique within a list and the tuples sort by two elements, with no sort-key
    -- lambda to evaluate.
    SELECT p, arraySlice(arraySort(groupArray(tuple(-score, ${mostFollowedFirstKey('followers', 'c')},
                                                    reason_kind, reason_chain_id, subject_pid, subject_collection,
                                                    social_score, counterparty_score, nft_score, fof_score))),
                         1, ${params.topK}) AS ranked
    FROM (${combinedSql(snapshotId, callers, params)}) AS combined
    ALL LEFT JOIN (${followerCountsSql(snapshotId, 'c')}) AS popularity USING c
    GROUP BY p`;
}

/**
 * (p, ranked): the first REC_TOP_K (`cut`) reordered with their unnamed paths
 * (unnamed-paths.ts): each candidate's fof_score gains what they weigh, its score that times
 * the friend-of-friend weight; the reason is kept.
 */
function withUnnamedPathsSql(snapshotId: number, callers: CallerFacts, params: ScoringParams, cut: SqlFragment): SqlFragment {
  const listed = sql`SELECT p, r, toUInt32(bitAnd(r.2, ${LOW_HALF})) AS c FROM (${cut}) ARRAY JOIN ranked AS r`;
  const weighed = unnamedWeightsSql(listed, neighboursSql(snapshotId, callers.lateFollows), sql`mat_follow_edges WHERE snapshot_id = ${snapshotId}`);
  return sql`
    SELECT p, arraySort(groupArray(tuple(-round(-r.1 + ${params.weights.fof} * u, 9), r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, round(r.10 + u, 9)))) AS ranked
    FROM (${weighed})
    GROUP BY p`;
}

/**
 * Ranked rows (rankedCandidatesSql's columns) with names: the candidate's profile id and the
 * reason's subject (the followed user's profile id, or the collection's name).
 *
 * `lookups: 'ranked only'` looks up only the ids `ranked` holds, which reads it once per
 * lookup: for rows already written (a nightly bucket's mat_ranked), not for a ranking
 * computed inline, which would run again each time.
 */
export function namedCandidatesSql(snapshotId: number, ranked: SqlFragment, lookups: 'ranked only' | 'every profile'): SqlFragment {
  const of = sql`WHERE snapshot_id = ${snapshotId}`;
  const only = (column: string, key: string) =>
    lookups === 'ranked only' ? sql`AND ${identifier(key)} IN (SELECT ${identifier(column)} FROM (${ranked}))` : sql``;
  return sql`
    SELECT p, rank, candidate_id, score, reason_kind, reason_chain_id,
           multiIf(reason_kind = ${SIGNAL.fof}, subject_profile_id, reason_kind = ${SIGNAL.nft}, collection_name, '') AS reason_subject,
           social_score, counterparty_score, nft_score, fof_score
    FROM
    (
        SELECT *
        FROM
        (
            SELECT *
            FROM (${ranked}) AS ranks
            ALL LEFT JOIN (SELECT pid AS c, profile_id AS candidate_id FROM mat_profiles ${of} ${only('c', 'pid')}) AS candidates USING c
        ) AS named
        ALL LEFT JOIN (SELECT pid AS subject_pid, profile_id AS subject_profile_id FROM mat_profiles ${of} ${only('subject_pid', 'pid')}) AS subjects USING subject_pid
    ) AS with_subjects
    ALL LEFT JOIN (SELECT collection AS subject_collection, name AS collection_name FROM mat_collections ${of} ${only('subject_collection', 'collection')}) AS collections USING subject_collection`;
}

/**
 * One row per (caller, candidate): each signal's score, the weighted total and the reason.
 *
 * The signals arrive as evidence rows, one per path or shared collection, and are summed in
 * one GROUP BY: aggregating friend-of-friend paths once, not per signal and then again.
 * Everything is numeric (no strings, no tuple keys: slow generic paths on ClickHouse 18.16).
 * Parts are rounded so that float summation order never reorders near-ties; the reason is
 * the signal with the largest weighted part, the lower signal number on a tie.
 */
function combinedSql(snapshotId: number, callers: CallerFacts, params: ScoringParams): SqlFragment {
  const w = params.weights;
  // The fitted weight (scoring-fit.ts), plus a millionth so that a follower with no other
  // evidence still makes the list where following back counts for nothing.
  const followsYou = sql`(${followsYouWeightSql(snapshotId, params)} + 0.000001)`;
  const part = (signal: number, weight: number) => sql`round(${weight} * ${identifier(SCORE_COLUMN[signal]!)}, 9)`;
  return sql`
    SELECT p, c, social_score, counterparty_score, nft_score, fof_score, score,
           -- greatest() takes two arguments on ClickHouse 18.16.
           multiIf(${part(1, w.social)} >= greatest(${part(2, w.counterparty)}, greatest(${part(3, w.nft)}, ${part(4, w.fof)})), ${SIGNAL.social},
                   ${part(2, w.counterparty)} >= greatest(${part(3, w.nft)}, ${part(4, w.fof)}), ${SIGNAL.counterparty},
                   ${part(3, w.nft)} >= ${part(4, w.fof)}, ${SIGNAL.nft},
                   ${SIGNAL.fof}) AS reason_kind,
           toUInt32(multiIf(reason_kind = ${SIGNAL.counterparty}, counterparty_chain,
                            reason_kind = ${SIGNAL.nft}, bitAnd(nft_key, ${LOW_HALF}), 0)) AS reason_chain_id,
           toUInt32(if(reason_kind = ${SIGNAL.fof}, bitAnd(fof_key, ${LOW_HALF}), 0)) AS subject_pid,
           toUInt32(if(reason_kind = ${SIGNAL.nft}, bitShiftRight(nft_key, 32), 0)) AS subject_collection
    FROM
    (
        SELECT toUInt32(bitShiftRight(pair, 32)) AS p, toUInt32(bitAnd(pair, ${LOW_HALF})) AS c,
               -- Light states: this GROUP BY holds millions of pairs per bucket (and spills past
               -- half the memory cap). Social and follows-you evidence are constants (1 and the
               -- bonus), so one bit each says all; a pair has at most one counterparty row
               -- (summed per pair in counterpartySql), so its chain is a plain sum.
               groupBitOr(bitShiftLeft(toUInt8(1), signal)) AS signals,
               toFloat64(bitTest(signals, ${SIGNAL.social})) AS social_score,
               sumIf(part, signal = ${SIGNAL.counterparty}) AS counterparty_score,
               sumIf(key, signal = ${SIGNAL.counterparty}) AS counterparty_chain,
               sumIf(part, signal = ${SIGNAL.nft}) AS nft_score,
               minIf(key, signal = ${SIGNAL.nft}) AS nft_key,
               sumIf(part, signal = ${SIGNAL.fof}) AS paths,
               -- Whom the reason names: a path's middle (followees before followers), else the
               -- candidate itself, who follows the caller (key 1 << 63 | c).
               minIf(key, signal = ${SIGNAL.fof} OR signal = ${FOLLOWS_YOU}) AS fof_key,
               -- A follower the caller has not had the chance to follow back counts twice (migration 050).
               paths + if(bitTest(signals, ${FOLLOWS_YOU}), ${followsYou}, 0) + if(bitTest(signals, ${NEW_FOLLOWER}), ${followsYou}, 0) AS fof_score,
               round(social_score * ${w.social} + counterparty_score * ${w.counterparty}
                     + nft_score * ${w.nft} + fof_score * ${w.fof}, 9) AS score
        FROM
        (
            -- Grouped by one UInt64 rather than (p, c): a third cheaper on ClickHouse 18.16.
            SELECT ${pairKey('p', 'c')} AS pair, signal, part, key
            FROM
            (
                ${socialSql(snapshotId, callers)}
                UNION ALL
                ${counterpartySql(snapshotId, callers)}
                UNION ALL
                ${nftSql(snapshotId, callers)}
                UNION ALL
                ${friendsOfFriendsSql(snapshotId, callers, params, SIGNAL.fof)}
                UNION ALL
                ${followsYouSql(callers)}
            )
            -- Self and the already-followed dropped before the GROUP BY, not after it: about a
            -- quarter of the evidence is about users the caller already follows.
            WHERE p != c AND pair NOT IN (SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))
        )
        GROUP BY pair
        HAVING score > 0
    )`;
}

/** The evidence pseudo-signals "the candidate follows the caller" (see friendsOfFriendsSql), and began after the caller's newest follow. */
const FOLLOWS_YOU = 5;
const NEW_FOLLOWER = 6;
const SCORE_COLUMN: Record<number, string> = { 1: 'social_score', 2: 'counterparty_score', 3: 'nft_score', 4: 'fof_score' };

/*
 * Evidence rows, all with the same columns: (p, c, signal, part, key). The key says what a
 * reason shows: the chain (counterparty), collection << 32 | its chain (nft: the rarest
 * shared collection is the smallest key), the followed user's degree << 32 | its dense id
 * (fof: who follows fewest, then the lowest id, is the smallest key).
 */

/** Signal 1: the caller follows the candidate's handle on the social network. */
function socialSql(snapshotId: number, callers: CallerFacts): SqlFragment {
  return sql`
    SELECT p, c, toUInt8(${SIGNAL.social}) AS signal, toFloat64(1) AS part, toUInt64(0) AS key
    -- The world's handles stream past the callers' follows, which are the side held in memory.
    FROM (SELECT social_username, pid AS c FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND social_username != '') AS handles
    ALL INNER JOIN (SELECT p, followee AS social_username FROM (${callers.socialFollows})) AS followed USING social_username`;
}

/**
 * Signal 2: the caller's and the candidate's addresses interacted. log(1 + weight) grows
 * slowly: the tenth transfer between two wallets adds less than the first. The chain shown
 * is the one with the most weight (the lowest chain id among equals). Few rows: summed here.
 */
function counterpartySql(snapshotId: number, callers: CallerFacts): SqlFragment {
  return sql`
    SELECT p, c, toUInt8(${SIGNAL.counterparty}) AS signal, log(1 + sum(chain_weight)) AS part,
           toUInt64(arrayReduce('min', arrayFilter((x, cw) -> cw = arrayReduce('max', groupArray(chain_weight)),
                                                   groupArray(chain_id), groupArray(chain_weight)))) AS key
    FROM
    (
        SELECT p, c, chain_id, sum(weight) AS chain_weight
        -- The world's addresses stream past the callers' interactions, which are the side held in memory.
        FROM (SELECT address, pid AS c FROM mat_addresses WHERE snapshot_id = ${snapshotId}) AS owners
        ALL INNER JOIN (SELECT p, counterparty AS address, chain_id, weight FROM (${callers.interactions})) AS interactions USING address
        GROUP BY p, c, chain_id
    )
    GROUP BY p, c`;
}

/**
 * Signal 3: both hold a collection; rare collections count more. The reason names the
 * rarest one they share (collection ids are rarity ranks). Each collection recommends only
 * its first holders (mat_collection_candidates): a large one pairs each holder with a
 * bounded few, not with every other holder.
 */
function nftSql(snapshotId: number, callers: CallerFacts): SqlFragment {
  return sql`
    SELECT p, c, toUInt8(${SIGNAL.nft}) AS signal, weight AS part, bitShiftLeft(toUInt64(collection), 32) + chain AS key
    FROM
    (
        SELECT p, collection, weight, chain_id AS chain
        FROM (SELECT p, collection FROM (${callers.holdings})) AS held
        ALL INNER JOIN (SELECT collection, weight, chain_id FROM mat_collections WHERE snapshot_id = ${snapshotId}) AS collections USING collection
    ) AS weighted
    ALL INNER JOIN (SELECT collection, pid AS c FROM mat_collection_candidates WHERE snapshot_id = ${snapshotId}) AS holders USING collection`;
}

/**
 * The candidates who already follow the caller: mutual interest is the strongest evidence a
 * follow graph has where follows are returned, and the run fits how much it is worth
 * (scoring-fit.ts). Their reason names a friend-of-friend path's middle when there is one;
 * otherwise the candidate itself ("Followed by <candidate>": the fourth reason form, with the
 * candidate as the user who follows). A follower who began after the caller's newest follow of
 * its own is the likeliest to be followed back next, and counts twice.
 */
function followsYouSql(callers: CallerFacts): SqlFragment {
  return sql`
    SELECT p, c, toUInt8(${FOLLOWS_YOU}) AS signal, toFloat64(0) AS part, bitShiftLeft(toUInt64(1), 63) + c AS key
    FROM (${callers.followers})
    UNION ALL
    SELECT p, c, toUInt8(${NEW_FOLLOWER}) AS signal, toFloat64(0) AS part, bitShiftLeft(toUInt64(1), 63) + c AS key
    FROM (${callers.newFollowers})`;
}
