-- Views with friendly names for analysts (docs/analysts.md), so that common questions
-- need no knowledge of row versions (ReplacingMergeTree, FINAL) or snapshot ids.
-- Plain views: nothing is stored, each query reads the tables below as they are now. A
-- user querying a view needs SELECT on the tables it reads (the analyst account has it).
-- One JOIN per SELECT and no window functions, so that they run on ClickHouse 18.16 too.

-- Every profile, newest state only.
CREATE VIEW IF NOT EXISTS current_profiles AS
SELECT profile_id, name, avatar, addresses, social_username, game_platform_id, updated_at
FROM profiles FINAL;

-- Which profile each wallet address is linked to now.
CREATE VIEW IF NOT EXISTS profile_addresses AS
SELECT identifier AS address, profile_id, updated_at AS linked_since
FROM profile_identities FINAL
WHERE kind = 'address' AND linked = 1;

-- Who follows whom in soulgraph's own app graph, now (unfollowed edges left out).
CREATE VIEW IF NOT EXISTS current_follows AS
SELECT follower_profile_id, followee_profile_id, followed_at
FROM follows FINAL
WHERE active = 1;

-- Who follows whom on the social network (handles), now.
CREATE VIEW IF NOT EXISTS current_social_follows AS
SELECT follower, followee, followed_at
FROM social_follows FINAL
WHERE active = 1;

-- NFTs held per address and collection, now: derived from every transfer (nft_holdings
-- has one row per token), with the collection's name when it is known.
CREATE VIEW IF NOT EXISTS address_nft_holdings AS
SELECT holder AS address, chain_id, contract, collection_name, tokens, balance
FROM
(
    SELECT holder, chain_id, contract, uniqExact(token_id) AS tokens, sum(balance) AS balance
    FROM nft_holdings
    GROUP BY holder, chain_id, contract
)
ANY LEFT JOIN
(
    SELECT chain_id, contract, name AS collection_name
    FROM nft_collections FINAL
) USING (chain_id, contract);

-- Every nightly snapshot with its current status (building, ready, failed, dropped).
CREATE VIEW IF NOT EXISTS snapshot_status AS
SELECT snapshot_id, toString(status) AS status, created_at, updated_at
FROM recommendation_snapshots FINAL;

-- The recommendations the API serves now: those of the newest ready snapshot, with the
-- candidate's name and the reason spelled out as the API does (chains by id: the API names
-- them from its CHAIN_NAMES setting). A friend-of-friend reason names the friend.
CREATE VIEW IF NOT EXISTS latest_recommendations AS
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
    )
    ANY LEFT JOIN
    (
        SELECT profile_id AS candidate_id, name AS candidate_name
        FROM profiles FINAL
    ) USING candidate_id
)
ANY LEFT JOIN
(
    SELECT profile_id AS reason_subject, name AS subject_name
    FROM profiles FINAL
) USING reason_subject;

-- Tags per profile in the newest ready snapshot, with the profile's name.
CREATE VIEW IF NOT EXISTS latest_profile_tags AS
SELECT snapshot_id, profile_id, name, tags
FROM
(
    SELECT snapshot_id, profile_id, tags
    FROM profile_tags
    WHERE snapshot_id = (SELECT max(snapshot_id) FROM recommendation_snapshots FINAL WHERE status = 'ready')
)
ANY LEFT JOIN
(
    SELECT profile_id, name
    FROM profiles FINAL
) USING profile_id;

-- How far behind each chain's ingested transactions are: the newest block time per chain
-- against now. No FINAL needed: re-ingested duplicates do not change a maximum.
CREATE VIEW IF NOT EXISTS chain_ingestion_lag AS
SELECT
    chain_id,
    max(block_number) AS newest_block,
    max(block_time) AS newest_block_time,
    toInt64(now()) - toInt64(max(block_time)) AS lag_seconds
FROM transactions
GROUP BY chain_id;
