-- What a nightly run measured of its own follow graph to weigh the follows-you evidence
-- (pipeline/materialize/scoring-fit.ts): how often a follow is returned here. Where people
-- follow back, a profile's own followers are its likeliest next follows; where they do not,
-- that evidence is worth nothing. One row per run, partitioned like the rest of the working
-- set (010).

CREATE TABLE IF NOT EXISTS mat_scoring_fit
(
    snapshot_id         UInt32   COMMENT 'Run',
    follows             UInt64   COMMENT 'Active follows between known profiles in the run''s working set (mat_follow_edges)',
    returned            UInt64   COMMENT 'Of those, the follows whose followee follows the follower too',
    fitted              UInt8    COMMENT '1 when follows reached REC_FIT_MIN_FOLLOWS and follows_you_weight was fitted; 0 when the default REC_FOLLOWS_YOU_BONUS was used',
    follows_you_weight  Float64  COMMENT 'Added to a candidate''s friend-of-friend score when it follows the profile: REC_FOLLOWS_YOU_SCALE x returned / (follows - returned), at most REC_FOLLOWS_YOU_MAX'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY snapshot_id;

-- The co-followed paths' first hops (pipeline/materialize/friends-of-friends.ts
-- followerHopsSql), written once per run like mat_first_hops (013), so that a bucket reads
-- its callers' slice instead of ranking every caller's followers again.
CREATE TABLE IF NOT EXISTS mat_follower_hops
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id)',
    f            UInt32  COMMENT 'A profile that follows p and that p does not follow, through which co-followed candidates come: at most REC_FOF_VIA_FOLLOWERS per p, those who follow fewest first, then the lower dense id',
    degree       UInt32  COMMENT 'How many profiles f follows'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, f);

ALTER TABLE recommendations COMMENT COLUMN fof_score 'Signal 4: sum over users who follow the candidate and whom the profile follows or is followed by, of 1 / ln(e + their follow count), plus the run''s follows_you_weight (mat_scoring_fit) if the candidate follows the profile, and for a profile with no evidence at all a millionth of ln(1 + the candidate''s followers)';
