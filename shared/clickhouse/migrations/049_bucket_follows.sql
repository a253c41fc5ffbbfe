-- mat_bucket_follows: the follows a nightly bucket ranks with (pipeline/materialize/bucket.ts):
-- every follow from or to one of its profiles, copied out of mat_follow_edges once when the
-- bucket starts. The ranking reads its profiles' followees and followers a dozen times; each
-- read of mat_follow_edges was a scan of the whole run's follows filtered by dense id modulo
-- the bucket count (100 k profiles: 5 M follows, about a tenth of each bucket's ranking).
-- A bucket's rows are dropped once its lists are written; a bucket that died in between
-- leaves them to its retry, which drops them first, or to retention.

CREATE TABLE IF NOT EXISTS mat_bucket_follows
(
    snapshot_id  UInt32  COMMENT 'Run',
    bucket       UInt16  COMMENT 'Bucket whose profiles follow or are followed here (dense id modulo the bucket count)',
    src          UInt32  COMMENT 'Follower (dense id), as mat_follow_edges.src',
    dst          UInt32  COMMENT 'Followee (dense id), as mat_follow_edges.dst'
)
ENGINE = MergeTree
PARTITION BY (snapshot_id, bucket)
ORDER BY (src, dst);
