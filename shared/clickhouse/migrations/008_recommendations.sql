-- Nightly recommendation snapshots. A run writes its rows under a new snapshot_id, then
-- marks the snapshot ready with one row in recommendation_snapshots; readers use the
-- newest ready snapshot, so they never see a half-written run. Old snapshots are dropped
-- by partition.

CREATE TABLE IF NOT EXISTS recommendation_snapshots
(
    snapshot_id  UInt32   COMMENT 'Snapshot number, increasing with each run',
    status       Enum8('building' = 1, 'ready' = 2, 'failed' = 3, 'dropped' = 4) COMMENT 'building while written; ready once complete; failed if the run died; dropped once retention removed its rows',
    created_at   DateTime COMMENT 'When the run started',
    updated_at   DateTime COMMENT 'Time of this status; the newest row per snapshot_id wins'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY snapshot_id
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS recommendations
(
    snapshot_id      UInt32   COMMENT 'Snapshot the row belongs to (see recommendation_snapshots)',
    profile_id       String   COMMENT 'Profile the recommendation is for',
    rank             UInt32   COMMENT '1 = best; unique per (snapshot_id, profile_id), no gaps',
    candidate_id     String   COMMENT 'Recommended profile',
    score            Float64  COMMENT 'Combined score of the four signals',
    reason_kind      Enum8('social' = 1, 'counterparty' = 2, 'nft' = 3, 'friend_of_friend' = 4) COMMENT 'Signal that contributed most',
    reason_chain_id  UInt32   COMMENT 'Chain of a counterparty or NFT reason; 0 otherwise',
    reason_subject   String   COMMENT 'Collection name of an nft reason, profile_id of the followed user of a friend_of_friend reason; empty otherwise'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (profile_id, rank)
SETTINGS index_granularity = 256;
