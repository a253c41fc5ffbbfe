-- The app's follows again, ordered by followee, so that "who follows X now" reads one range
-- instead of scanning the followee column of every follow: a newcomer's list computed on
-- demand asks it once (pipeline/materialize/cold-start.ts), and in a world of a million
-- profiles that scan alone was most of the 5 s the API waits. Kept in step with follows by
-- the materialized view below, as sbt_mints_by_owner is with sbt_mints (005). Same replacing
-- key and version as follows, so FINAL keeps the same newest row of each pair.
-- "Who follows X now": SELECT follower_profile_id FROM follows_by_followee FINAL WHERE followee_profile_id = X AND active = 1

CREATE TABLE IF NOT EXISTS follows_by_followee
(
    followee_profile_id  String   COMMENT 'Profile being followed',
    follower_profile_id  String   COMMENT 'Profile that follows',
    followed_at          DateTime COMMENT 'When the follow happened',
    unfollowed_at        Nullable(DateTime) COMMENT 'When it was undone, if it was',
    active               UInt8    COMMENT '1 if the follower follows the followee now',
    updated_at           DateTime COMMENT 'Time of the latest event, greatest(followed_at, unfollowed_at); the newest row wins',
    ingested_at          DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (followee_profile_id, follower_profile_id)
SETTINGS index_granularity = 256;

-- The view first, then the copy of what follows holds: a follow written in between lands in
-- both, and its two copies are one row to FINAL.
CREATE MATERIALIZED VIEW IF NOT EXISTS follows_by_followee_mv TO follows_by_followee AS
SELECT followee_profile_id, follower_profile_id, followed_at, unfollowed_at, active, updated_at, ingested_at
FROM follows;

INSERT INTO follows_by_followee (followee_profile_id, follower_profile_id, followed_at, unfollowed_at, active, updated_at, ingested_at)
SELECT followee_profile_id, follower_profile_id, followed_at, unfollowed_at, active, updated_at, ingested_at
FROM follows;
