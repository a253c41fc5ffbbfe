-- The analysts' views that join (docs/analysts.md), written to mean the same on ClickHouse
-- 18.16 and on current versions: every joined subquery has an alias (current versions
-- refuse one without), and every JOIN is ALL, over a right side that holds one row per key
-- (FINAL, or profile ids): ANY picks a different row among duplicates on each version.
-- Each view is dropped first: deployments that applied the first text of 040 have it
-- under the same name.

-- NFTs held per address and collection, now: derived from every transfer (nft_holdings
-- has one row per token), with the collection's name when it is known.
DROP TABLE IF EXISTS address_nft_holdings;
CREATE VIEW address_nft_holdings AS
SELECT holder AS address, chain_id, contract, collection_name, tokens, balance
FROM
(
    SELECT holder, chain_id, contract, uniqExact(token_id) AS tokens, sum(balance) AS balance
    FROM nft_holdings
    GROUP BY holder, chain_id, contract
) AS held
ALL LEFT JOIN
(
    SELECT chain_id, contract, name AS collection_name
    FROM nft_collections FINAL
) AS collections USING (chain_id, contract);

-- The recommendations the API serves now: those of the newest ready snapshot, with the
-- candidate's name and the reason spelled out as the API does (chains by id: the API names
-- them from its CHAIN_NAMES setting). A friend-of-friend reason names the friend.
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

-- Tags per profile in the newest ready snapshot, with the profile's name.
DROP TABLE IF EXISTS latest_profile_tags;
CREATE VIEW latest_profile_tags AS
SELECT snapshot_id, profile_id, name, tags
FROM
(
    SELECT snapshot_id, profile_id, tags
    FROM profile_tags
    WHERE snapshot_id = (SELECT max(snapshot_id) FROM recommendation_snapshots FINAL WHERE status = 'ready')
) AS tagged
ALL LEFT JOIN
(
    SELECT profile_id, name
    FROM profiles FINAL
) AS named USING profile_id;
