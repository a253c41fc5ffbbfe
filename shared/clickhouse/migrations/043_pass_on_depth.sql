-- What a followee passes on now depends on who follows it (pipeline/materialize/bounded-lists.ts):
-- its REC_FOF_PER_FOLLOWEE most followed followees that the caller does not follow yet, found
-- among its first REC_FOF_PASS_ON_DEPTH. So each followee's list is kept that deep, and each
-- entry says whether the path back reaches it, which no longer needs mat_fof_back's flag.
-- mat_fof_forward is working set only (rebuilt by every run), so it is dropped and created
-- anew with its entries widened to UInt64.

DROP TABLE IF EXISTS mat_fof_forward;

CREATE TABLE IF NOT EXISTS mat_fof_forward
(
    snapshot_id  UInt32         COMMENT 'Run',
    f            UInt32         COMMENT 'Profile (dense id) that someone follows',
    candidates   Array(UInt64)  COMMENT 'The first REC_FOF_PASS_ON_DEPTH profiles f follows, most followed first (mat_fof_edges rows of src f by dst_rank), each as (f is among its first REC_FOF_PER_FOLLOWER followers: the path back counts it) << 32 | its dense id; a caller following f is passed on the first REC_FOF_PER_FOLLOWEE of them that it does not follow yet'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY f;

ALTER TABLE mat_fof_edges COMMENT COLUMN dst_rank 'Place of dst among the profiles src follows, most followed first (then lower dense id); kept when dst_rank <= REC_FOF_PASS_ON_DEPTH, and src passes dst on to those of its followers that do not follow dst yet while they need more (REC_FOF_PER_FOLLOWEE)';

ALTER TABLE mat_fof_back COMMENT COLUMN followers 'The REC_FOF_PER_FOLLOWER most followed followers f of c (mat_fof_edges rows of dst c with src_rank <= REC_FOF_PER_FOLLOWER), each as (profiles f follows) << 32 | f: when c follows a caller who follows f, the path caller -> f -> c counts';
