-- Follow edges. One row per (follower, followee); the newest event (follow or unfollow) wins.
-- "Whom X follows now": SELECT followee FROM social_follows FINAL WHERE follower = X AND active = 1

CREATE TABLE IF NOT EXISTS social_follows
(
    follower       String   COMMENT 'Follower''s social network handle, lowercase',
    followee       String   COMMENT 'Followed handle, lowercase',
    followed_at    DateTime COMMENT 'When the follow happened',
    unfollowed_at  Nullable(DateTime) COMMENT 'When it was undone, if it was',
    active         UInt8    COMMENT '1 if the follower follows the followee now',
    updated_at     DateTime COMMENT 'Time of the latest event, greatest(followed_at, unfollowed_at); the newest row wins',
    ingested_at    DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (follower, followee)
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS follows
(
    follower_profile_id  String   COMMENT 'Profile that follows (in soulgraph''s own app graph)',
    followee_profile_id  String   COMMENT 'Profile being followed',
    followed_at          DateTime COMMENT 'When the follow happened',
    unfollowed_at        Nullable(DateTime) COMMENT 'When it was undone, if it was',
    active               UInt8    COMMENT '1 if the follower follows the followee now',
    updated_at           DateTime COMMENT 'Time of the latest event, greatest(followed_at, unfollowed_at); the newest row wins',
    ingested_at          DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (follower_profile_id, followee_profile_id)
SETTINGS index_granularity = 256;
