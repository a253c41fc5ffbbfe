-- A profile whose friend-of-friend paths are few gets every one of them instead of the bounded
-- sample (REC_FOF_EXACT_PATHS; pipeline/materialize/friends-of-friends.ts exactCallersSql): its
-- first hops are all whom it follows, its follower hops all its followers it does not follow,
-- and each row says so. Both tables are working set only (rebuilt by every run), so they are
-- dropped and created anew with the column.

DROP TABLE IF EXISTS mat_first_hops;

CREATE TABLE IF NOT EXISTS mat_first_hops
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id)',
    f            UInt32  COMMENT 'A profile p follows through which p''s friends of friends come: every one when exact = 1; else at most REC_FOF_VIA_FOLLOWEES per p, those who follow p back first, then those who follow fewest, then the lower dense id',
    degree       UInt32  COMMENT 'How many profiles f follows',
    exact        UInt8   COMMENT '1 when p has at most REC_FOF_EXACT_PATHS friend-of-friend paths in all and gets every one of them (each hop passing on everyone it follows); 0 when p''s paths are the bounded sample'
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
    exact        UInt8   COMMENT '1 when p gets every friend-of-friend path (as in mat_first_hops)'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, f);

ALTER TABLE mat_fof_edges COMMENT COLUMN dst_rank 'Place of dst among the profiles src follows, most followed first (then lower dense id); kept when dst_rank <= the greater of REC_FOF_PASS_ON_DEPTH and REC_FOF_EXACT_PATHS, and src passes dst on to those of its followers that do not follow dst yet: to a bounded one while it needs more (REC_FOF_PER_FOLLOWEE, within REC_FOF_PASS_ON_DEPTH), to an exact one always';
