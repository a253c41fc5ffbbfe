-- The friend-of-friend expansion as lists (pipeline/materialize/friends-of-friends.ts): what
-- a bucket joins per caller, written once per run from mat_follow_edges and mat_fof_edges.
-- A caller's forward paths are its first hops times the list each hop passes on, and its
-- paths back come from the list of each follower's own followers: one small lookup per
-- caller row instead of a join that fans out to every path before filtering, and a bucket
-- reads only the entries of the profiles it touches, so its memory grows with the bucket,
-- not with the world. Partitioned by snapshot_id like the rest of the working set (010).

CREATE TABLE IF NOT EXISTS mat_first_hops
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id)',
    f            UInt32  COMMENT 'A profile p follows through which p''s friends of friends come: at most REC_FOF_VIA_FOLLOWEES per p, those who follow p back first, then those who follow fewest, then the lower dense id',
    degree       UInt32  COMMENT 'How many profiles f follows'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, f);

CREATE TABLE IF NOT EXISTS mat_fof_forward
(
    snapshot_id  UInt32         COMMENT 'Run',
    f            UInt32         COMMENT 'Profile (dense id) that someone follows',
    candidates   Array(UInt32)  COMMENT 'What f passes on to those who follow it: its REC_FOF_PER_FOLLOWEE most followed followees (mat_fof_edges rows of src f with dst_rank <= REC_FOF_PER_FOLLOWEE)'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY f;

CREATE TABLE IF NOT EXISTS mat_fof_back
(
    snapshot_id  UInt32         COMMENT 'Run',
    c            UInt32         COMMENT 'Profile (dense id) that someone follows',
    followers    Array(UInt64)  COMMENT 'The REC_FOF_PER_FOLLOWER most followed followers f of c (mat_fof_edges rows of dst c with src_rank <= REC_FOF_PER_FOLLOWER), each as (f passes c on) << 63 | (profiles f follows) << 32 | f: when c follows a caller who follows f, the path caller -> f -> c counts'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY c;
