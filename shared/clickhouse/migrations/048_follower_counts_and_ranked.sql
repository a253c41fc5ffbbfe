-- Two tables a nightly bucket reads or writes (pipeline/materialize/bucket.ts).
--
-- mat_follower_counts: how many follow each profile, counted once per run. The bounded lists,
-- each bucket's tie order and every list's filler used to count every follow of the run
-- again, each bucket twice (at 1 M profiles, 50 M follows each time).
--
-- mat_ranked: a nightly bucket ranks its profiles' lists in one statement and names them in a second
-- (pipeline/materialize/bucket.ts): the ranking's aggregation then runs without the
-- world-sized lookups from dense ids to profile ids beside it, which at 1 M profiles took
-- it past the spill threshold (docs/scaling.md), and the naming looks up only the ids it
-- ranked. A bucket's rows here are dropped once named; a bucket that died in between leaves
-- them to its retry, which drops them first, or to retention.

CREATE TABLE IF NOT EXISTS mat_follower_counts
(
    snapshot_id  UInt32  COMMENT 'Run',
    pid          UInt32  COMMENT 'Profile (dense id) that at least one profile follows in the app (mat_follow_edges)',
    followers    UInt32  COMMENT 'How many follow it'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY pid;

-- The working set a snapshot built before this migration keeps (on-demand lists read it until
-- the next run) gets its counts here, once: a migration re-run after a crash adds none twice.
INSERT INTO mat_follower_counts (snapshot_id, pid, followers)
SELECT snapshot_id, dst, toUInt32(count())
FROM mat_follow_edges
WHERE snapshot_id NOT IN (SELECT snapshot_id FROM mat_follower_counts)
GROUP BY snapshot_id, dst;

CREATE TABLE IF NOT EXISTS mat_ranked
(
    snapshot_id         UInt32   COMMENT 'Run',
    bucket              UInt16   COMMENT 'Bucket that ranked the list (dense id modulo the bucket count)',
    p                   UInt32   COMMENT 'Profile the list is for (dense id, mat_profiles)',
    rank                UInt32   COMMENT '1 = best, as in recommendations',
    c                   UInt32   COMMENT 'Candidate (dense id)',
    score               Float64  COMMENT 'As recommendations.score',
    reason_kind         UInt8    COMMENT 'As recommendations.reason_kind: 1 social, 2 counterparty, 3 nft, 4 friend_of_friend',
    reason_chain_id     UInt32   COMMENT 'As recommendations.reason_chain_id',
    subject_pid         UInt32   COMMENT 'Dense id of the followed user a friend_of_friend reason names; 0 otherwise',
    subject_collection  UInt32   COMMENT 'Collection (mat_collections) an nft reason names; 0 otherwise',
    social_score        Float64  COMMENT 'As recommendations.social_score',
    counterparty_score  Float64  COMMENT 'As recommendations.counterparty_score',
    nft_score           Float64  COMMENT 'As recommendations.nft_score',
    fof_score           Float64  COMMENT 'As recommendations.fof_score'
)
ENGINE = MergeTree
PARTITION BY (snapshot_id, bucket)
ORDER BY (p, rank);
