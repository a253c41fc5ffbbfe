import { sql } from '../../shared/clickhouse/sql-literal.ts';

/** The columns of recommendations, in the order the INSERTs below write them. */
export const RECOMMENDATION_COLUMNS = sql`(snapshot_id, bucket, profile_id, rank, candidate_id, score, reason_kind,
     reason_chain_id, reason_subject, social_score, counterparty_score, nft_score, fof_score)`;

/** The same columns selected from rankedCandidatesSql plus snapshot_id, bucket and profile_id. */
export const RANKED_COLUMNS = sql`rank, candidate_id, score, reason_kind,
     reason_chain_id, reason_subject, social_score, counterparty_score, nft_score, fof_score`;

/** The columns of mat_ranked after snapshot_id and bucket: rankedCandidatesSql's, in its order. */
export const RANKED_ID_COLUMNS = sql`p, rank, c, score, reason_kind, reason_chain_id, subject_pid, subject_collection,
     social_score, counterparty_score, nft_score, fof_score`;
