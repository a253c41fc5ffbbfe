-- User tags per snapshot: the categories of the issuers of the SBTs a profile holds on any
-- of its addresses, computed by the nightly run next to its recommendations, and dropped
-- with them by partition.

CREATE TABLE IF NOT EXISTS profile_tags
(
    snapshot_id  UInt32        COMMENT 'Snapshot the row belongs to (see recommendation_snapshots)',
    profile_id   String        COMMENT 'Profile the tags describe',
    tags         Array(String) COMMENT 'Issuer categories (GameFi, DeFi, DAO, ...), deduplicated, sorted'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY profile_id
SETTINGS index_granularity = 256;
