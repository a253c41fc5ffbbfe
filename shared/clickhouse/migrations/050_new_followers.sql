-- mat_new_followers: who began following a profile after that profile last followed anyone
-- (pipeline/materialize/working-set.ts). A follow the profile has not had the chance to
-- return is the likeliest to be returned next, so such a follower counts the follows-you
-- weight twice (docs/materialization.md). Follows made at the same second as the profile's
-- newest are not new; a profile that follows nobody has none.

CREATE TABLE IF NOT EXISTS mat_new_followers
(
    snapshot_id  UInt32  COMMENT 'Run',
    src          UInt32  COMMENT 'Follower (dense id): began following dst after dst''s newest follow of its own',
    dst          UInt32  COMMENT 'Followed profile (dense id), which follows someone in the app'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (dst, src);
