-- Views with friendly names for analysts (docs/analysts.md), so that common questions
-- need no knowledge of row versions (ReplacingMergeTree, FINAL) or snapshot ids.
-- Plain views: nothing is stored, each query reads the tables below as they are now. A
-- user querying a view needs SELECT on the tables it reads (the analyst account has it).
-- One JOIN per SELECT and no window functions, so that they run on ClickHouse 18.16 too.
--
-- The views with a JOIN are in 041_portable_analyst_views.sql. This file first also had
-- them, written so that current ClickHouse refused them (a joined subquery without an
-- alias): that text stopped every migration on current ClickHouse here. Deployments that
-- applied it (ClickHouse 18.16) get those views replaced by 041.
-- revises: c07a1e3bf8a38ebab3965cf6fc16f6ff9d30b7e9804539b43846a33877fe47b1

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

-- Every nightly snapshot with its current status (building, ready, failed, dropped).
CREATE VIEW IF NOT EXISTS snapshot_status AS
SELECT snapshot_id, toString(status) AS status, created_at, updated_at
FROM recommendation_snapshots FINAL;

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
