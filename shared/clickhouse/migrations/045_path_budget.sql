-- A profile with more friend-of-friend paths than REC_FOF_PATHS (which replaces
-- REC_FOF_EXACT_PATHS) no longer falls back to a fixed few per followee: its followees share
-- REC_FOF_PATHS among them (pipeline/materialize/friends-of-friends.ts firstHopsSql), so each
-- hop row says how many it passes on. Both tables are working set only (rebuilt by every
-- run), so they are dropped and created anew with the column.

DROP TABLE IF EXISTS mat_first_hops;

CREATE TABLE IF NOT EXISTS mat_first_hops
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id)',
    f            UInt32  COMMENT 'A profile p follows through which p''s friends of friends come: every one when exact = 1; else at most REC_FOF_VIA_FOLLOWEES per p, those who follow p back first, then those who follow fewest, then the lower dense id',
    degree       UInt32  COMMENT 'How many profiles f follows',
    exact        UInt8   COMMENT '1 when p has at most REC_FOF_PATHS friend-of-friend paths in all and gets every one of them; 0 when p''s paths are a sample of about that many',
    passes_on    UInt32  COMMENT 'How many of the profiles f follows (most followed first, skipping p and whom p follows) f passes on to p: all of them when exact = 1; else an equal share of REC_FOF_PATHS among p''s rows here, at least REC_FOF_PER_FOLLOWEE and at most REC_FOF_PASS_ON_DEPTH'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, f);

DROP TABLE IF EXISTS mat_follower_hops;

CREATE TABLE IF NOT EXISTS mat_follower_hops
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id)',
    f            UInt32  COMMENT 'A profile that follows p and that p does not follow, through which co-followed candidates come: every one when exact = 1; else at most REC_FOF_VIA_FOLLOWERS per p, those who follow fewest first, then the lower dense id',
    degree       UInt32  COMMENT 'How many profiles f follows',
    exact        UInt8   COMMENT '1 when p gets every friend-of-friend path (as in mat_first_hops)',
    passes_on    UInt32  COMMENT 'How many of the profiles f follows f passes on to p: all of them when exact = 1; else REC_FOF_PER_FOLLOWEE'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, f);

ALTER TABLE mat_fof_edges COMMENT COLUMN dst_rank 'Place of dst among the profiles src follows, most followed first (then lower dense id); kept when dst_rank <= the greater of REC_FOF_PASS_ON_DEPTH and REC_FOF_PATHS, and src passes dst on to those of its followers that do not follow dst yet, while they need more (mat_first_hops.passes_on)';

ALTER TABLE mat_fof_forward COMMENT COLUMN candidates 'The first profiles f follows, most followed first (mat_fof_edges rows of src f by dst_rank), each as (f is among its first REC_FOF_PER_FOLLOWER followers: the path back counts it) << 32 | its dense id; a caller following f is passed on the first passes_on (mat_first_hops) of them that it does not follow yet';
