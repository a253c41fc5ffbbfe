-- When a friend-of-friend path was made (pipeline/materialize/path-recency.ts): people tend to
-- follow next whom their friends followed about when they themselves last followed anyone.
-- Each follow gets its moment, its place in the run's time, and a path p -> f -> c can weigh
-- by how near f's follow of c is to p's newest follow, unless the run's fit on its own newest
-- follows finds that it ranks them worse (mat_recency_fit). The working-set tables gain
-- their moments as columns, not by being dropped and created anew: the serving snapshot's
-- working set is what on-demand lists read until the next run, and its rows read moment 0
-- everywhere, which weighs every path as before. (ClickHouse 18.16 drops a COMMENT given with
-- ADD COLUMN: each comment is set by a COMMENT COLUMN of its own.)

CREATE TABLE IF NOT EXISTS mat_follow_times
(
    snapshot_id  UInt32    COMMENT 'Run',
    since        DateTime  COMMENT 'Start of a span of time in which at least one of the run''s follows (mat_follow_edges) was made; spans start at multiples of seconds',
    seconds      UInt32    COMMENT 'Length of every span of the run: the app''s follows, first to newest, cut into 2^20 spans at most (pipeline/materialize/path-recency.ts, TIME_SPANS)',
    through      UInt64    COMMENT 'How many of the run''s follows were made before the span ends',
    moment       UInt16    COMMENT 'Place in the run''s time of a follow made in the span: 2000 x (those made before the span + half of those made in it) / all of them, rounded down; 0 for the earliest, 2000 after the newest'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY since;

ALTER TABLE mat_follow_edges ADD COLUMN moment UInt16;

ALTER TABLE mat_follow_edges COMMENT COLUMN moment 'When src followed dst, as a place in the run''s time (mat_follow_times.moment); 0 in runs before migration 051';

ALTER TABLE mat_fof_edges ADD COLUMN moment UInt16;

ALTER TABLE mat_fof_edges COMMENT COLUMN moment 'When src followed dst (mat_follow_edges.moment)';

ALTER TABLE mat_fof_back ADD COLUMN moments Array(UInt16);

ALTER TABLE mat_fof_back COMMENT COLUMN moments 'When each of followers followed c (mat_follow_edges.moment), in the same order; empty in runs before migration 051';

ALTER TABLE mat_fof_forward COMMENT COLUMN candidates 'The first profiles f follows, most followed first (mat_fof_edges rows of src f by dst_rank), each as (when f followed it: mat_follow_edges.moment) << 48 | (f is among its first REC_FOF_PER_FOLLOWER followers: the path back counts it) << 32 | its dense id; a caller following f is passed on the first passes_on (mat_first_hops) of them that it does not follow yet';

ALTER TABLE mat_bucket_follows ADD COLUMN moment UInt16;

ALTER TABLE mat_bucket_follows COMMENT COLUMN moment 'When src followed dst (mat_follow_edges.moment)';

CREATE TABLE IF NOT EXISTS mat_recency_fit
(
    snapshot_id     UInt32  COMMENT 'Run',
    held_out        UInt64  COMMENT 'Follows held out (mat_held_out_follows), as for mat_path_weight_fit',
    found_plain     UInt64  COMMENT 'Of those, the held-out follows that ranking with the run''s path weight (mat_path_weight_fit.path_weight) put in the first REC_FIT_PLACES of the profile''s candidates',
    found_recent    UInt64  COMMENT 'The same, each path also weighed by how near its follow is to the profile''s newest follow of its own: (0.2 + e^(-gap / 200)) / 1.2, gap the distance between their moments',
    only_plain      UInt64  COMMENT 'Held-out follows the plain ranking puts in the first REC_FIT_PLACES and the recent one does not',
    only_recent     UInt64  COMMENT 'Held-out follows the recent ranking puts in the first REC_FIT_PLACES and the plain one does not',
    recency         UInt8   COMMENT '1 when the run''s lists weigh paths by recency: REC_PATH_RECENCY=always, or fit unless only_plain exceeds only_recent by more than twice the square root of their sum (a sign test at about 95 %); else 0'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY snapshot_id;
