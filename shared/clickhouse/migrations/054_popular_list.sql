-- The run's popular list (pipeline/materialize/popular-padding.ts): the most followed profiles,
-- each with its most followed follower, whom the filler's reason names. Written once per run:
-- every bucket filling its short lists, and every list computed on demand, read it here instead
-- of sorting every profile's follower count again and scanning the run's friend-of-friend edges
-- for the followers (at 1 M profiles, 52 M edges a bucket, and most of a list computed on
-- demand's time after its caller's facts).

CREATE TABLE IF NOT EXISTS mat_popular
(
    snapshot_id  UInt32  COMMENT 'Run',
    place        UInt32  COMMENT '1 = the most followed profile of the run; ties go to the lower dense id',
    pid          UInt32  COMMENT 'Profile (dense id, mat_profiles)',
    followers    UInt32  COMMENT 'How many follow it (mat_follower_counts)',
    subject_pid  UInt32  COMMENT 'Its most followed follower (the mat_fof_edges row of dst pid with src_rank 1): whom a filler''s reason names'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY place;

-- The working sets of snapshots built before this migration (on-demand lists read the newest
-- until the next run) get their lists here, once: 1,000 places, more than the default
-- REC_TOP_K and its spare take. A migration re-run after a crash adds none twice.
INSERT INTO mat_popular (snapshot_id, place, pid, followers, subject_pid)
SELECT snapshot_id, place, pid, followers, subject_pid
FROM
(
    SELECT snapshot_id, place, toUInt32(bitAnd(key, 4294967295)) AS pid, toUInt32(4294967295 - bitShiftRight(key, 32)) AS followers
    FROM
    (
        SELECT snapshot_id, arraySlice(arraySort(groupArray(bitShiftLeft(toUInt64(4294967295 - followers), 32) + pid)), 1, 1000) AS keys
        FROM mat_follower_counts
        WHERE snapshot_id NOT IN (SELECT snapshot_id FROM mat_popular)
        GROUP BY snapshot_id
    )
    ARRAY JOIN keys AS key, arrayEnumerate(keys) AS place
) AS popular
ALL INNER JOIN
(
    SELECT snapshot_id, dst AS pid, src AS subject_pid FROM mat_fof_edges
    WHERE src_rank = 1 AND snapshot_id NOT IN (SELECT snapshot_id FROM mat_popular)
) AS most_followed_followers USING (snapshot_id, pid);
