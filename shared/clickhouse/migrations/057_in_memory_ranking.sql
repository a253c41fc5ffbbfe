-- The ranking moved into memory (pipeline/materialize, docs/materialization.md): a run reads
-- its inputs once and ranks every list in the workers' threads, so the SQL ranking's working
-- set, its mat_* scratch tables, goes. Their rows were a run's scratch (every run rebuilt
-- them), never of record.
DROP TABLE IF EXISTS mat_addresses;
DROP TABLE IF EXISTS mat_bucket_follows;
DROP TABLE IF EXISTS mat_collection_candidates;
DROP TABLE IF EXISTS mat_collection_holders;
DROP TABLE IF EXISTS mat_collections;
DROP TABLE IF EXISTS mat_excluded_addresses;
DROP TABLE IF EXISTS mat_first_hops;
DROP TABLE IF EXISTS mat_fof_back;
DROP TABLE IF EXISTS mat_fof_edges;
DROP TABLE IF EXISTS mat_fof_forward;
DROP TABLE IF EXISTS mat_follow_edges;
DROP TABLE IF EXISTS mat_follow_times;
DROP TABLE IF EXISTS mat_follower_counts;
DROP TABLE IF EXISTS mat_follower_hops;
DROP TABLE IF EXISTS mat_held_out_follows;
DROP TABLE IF EXISTS mat_held_out_places;
DROP TABLE IF EXISTS mat_holdings;
DROP TABLE IF EXISTS mat_interactions;
DROP TABLE IF EXISTS mat_new_followers;
DROP TABLE IF EXISTS mat_path_budget;
DROP TABLE IF EXISTS mat_path_counts;
DROP TABLE IF EXISTS mat_path_weight_fit;
DROP TABLE IF EXISTS mat_popular;
DROP TABLE IF EXISTS mat_profiles;
DROP TABLE IF EXISTS mat_ranked;
DROP TABLE IF EXISTS mat_recency_fit;
DROP TABLE IF EXISTS mat_scoring_fit;
DROP TABLE IF EXISTS mat_social_follows;
DROP TABLE IF EXISTS mat_unnamed_paths_fit;

-- Reasons beyond the interface's four, each a true statement about the data: the candidate
-- follows the profile (and no friend links them); one of the most followed, filling a list
-- after its candidates; only walks and paths no other reason names link them (both follow
-- someone, or a walk of more steps). Adding values to an Enum8 rewrites no row.
ALTER TABLE recommendations MODIFY COLUMN reason_kind Enum8('social' = 1, 'counterparty' = 2, 'nft' = 3, 'friend_of_friend' = 4, 'follows_you' = 5, 'popular' = 6, 'network' = 7) COMMENT 'The strongest signal with evidence for the candidate: social (the profile''s handle follows the candidate''s), counterparty (their addresses transferred), nft (both hold the collection), friend_of_friend (reason_subject follows the candidate, and the profile follows it or is followed by it), follows_you (the candidate follows the profile), popular (one of the most followed, filling the list after its candidates), network (only walks and paths no other reason names link them)';
ALTER TABLE recommendations COMMENT COLUMN score 'The ranking model''s score (ranking_models: the weighted sum of the pair''s features); 0 for the most followed profiles that fill a list after its candidates';
ALTER TABLE recommendations COMMENT COLUMN social_score 'The part of score from the social signal (weight × 1 if the profile''s handle follows the candidate''s)';
ALTER TABLE recommendations COMMENT COLUMN counterparty_score 'The part of score from transfers between their addresses (weight × ln(1 + Σ 2^(-age / half-life)))';
ALTER TABLE recommendations COMMENT COLUMN nft_score 'The part of score from collections both hold (weight × ln(1 + Σ 1 / ln(1 + holders)))';
ALTER TABLE recommendations COMMENT COLUMN fof_score 'The part of score from the follow graph: following back, paths of two hops, walks, popularity';

-- What ranked each snapshot: the ranking model's weights, fitted by the run to its own newest
-- follows (or the defaults where it had too little to go on), with what the fit saw, and how
-- long the run's phases took.
CREATE TABLE IF NOT EXISTS ranking_models
(
    snapshot_id         UInt32         COMMENT 'The snapshot this model ranked (recommendation_snapshots)',
    computed_at         DateTime       COMMENT 'When the run fitted it',
    source              Enum8('fitted' = 1, 'default' = 2) COMMENT 'fitted: chosen by the run''s held-out follows; default: the documented defaults (too few held-out follows found)',
    features            Array(String)  COMMENT 'The features the weights belong to, in order (docs/materialization.md)',
    weights             Array(Float64) COMMENT 'Each feature''s weight; a pair''s score is the sum of weight × transformed feature',
    held_out_profiles   UInt32         COMMENT 'Profiles whose newest follows the fit hid',
    held_out_follows    UInt32         COMMENT 'The follows it hid',
    found_as_candidates UInt32         COMMENT 'Hidden follows among their profiles'' candidates: what any weights can find',
    found_by_default    UInt32         COMMENT 'Hidden follows in their profile''s first 50 under the default weights',
    found_by_fitted     UInt32         COMMENT 'Hidden follows in their profile''s first 50 under the fitted weights',
    path_cap            UInt32         COMMENT 'Paths of two hops a profile got at most (REC_FOF_PATHS, REC_FOF_PATHS_PER_RUN)',
    paths_in_all        UInt64         COMMENT 'Paths of two hops of every profile, unbounded',
    profiles            UInt32         COMMENT 'Profiles the run loaded',
    follows             UInt32         COMMENT 'Follows the run loaded',
    load_seconds        Float64        COMMENT 'Seconds the run took to read its inputs',
    fit_seconds         Float64        COMMENT 'Seconds the fit took'
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY snapshot_id
SETTINGS index_granularity = 256;

-- latest_recommendations spells the three new reasons as the API does (041 spelled only the
-- four: the new ones read "Followed by" there). A view holds no rows.
DROP TABLE IF EXISTS latest_recommendations;
CREATE VIEW latest_recommendations AS
SELECT
    snapshot_id,
    profile_id,
    rank,
    candidate_id,
    candidate_name,
    score,
    toString(reason_kind) AS reason_kind,
    reason_chain_id,
    reason_subject,
    multiIf(
        reason_kind = 'social', 'Following on the social network',
        reason_kind = 'counterparty', concat('Counterparty on chain ', toString(reason_chain_id)),
        reason_kind = 'nft', concat('Holder of ', reason_subject),
        reason_kind = 'follows_you', 'Follows you',
        reason_kind = 'popular', 'Popular',
        reason_kind = 'network', 'In your network',
        concat('Followed by ', if(subject_name != '', subject_name, reason_subject))
    ) AS reason
FROM
(
    SELECT snapshot_id, profile_id, rank, candidate_id, candidate_name, score, reason_kind, reason_chain_id, reason_subject
    FROM
    (
        SELECT snapshot_id, profile_id, rank, candidate_id, score, reason_kind, reason_chain_id, reason_subject
        FROM recommendations
        WHERE snapshot_id = (SELECT max(snapshot_id) FROM recommendation_snapshots FINAL WHERE status = 'ready')
    ) AS ranked
    ALL LEFT JOIN
    (
        SELECT profile_id AS candidate_id, name AS candidate_name
        FROM profiles FINAL
    ) AS candidates USING candidate_id
) AS named
ALL LEFT JOIN
(
    SELECT profile_id AS reason_subject, name AS subject_name
    FROM profiles FINAL
) AS subjects USING reason_subject;
