-- How many friend-of-friend paths each profile of a run gets (pipeline/materialize/path-budget.ts):
-- the largest cap under which every profile's paths, cut at the cap, fit in
-- REC_FOF_PATHS_PER_RUN, at least REC_FOF_PATHS. One row per run, partitioned like the rest of
-- the working set (010).

CREATE TABLE IF NOT EXISTS mat_path_counts
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'Profile (dense id) with at least one friend-of-friend path',
    paths        UInt64  COMMENT 'Its friend-of-friend paths in all, counted without bounds: Σ over whom it follows, and its followers it does not follow, of how many those follow'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY p;

CREATE TABLE IF NOT EXISTS mat_path_budget
(
    snapshot_id          UInt32  COMMENT 'Run',
    profiles_with_paths  UInt64  COMMENT 'Profiles with at least one friend-of-friend path',
    paths_in_all         UInt64  COMMENT 'Their paths in all, counted without bounds: Σ over whom each follows, and its followers it does not follow, of how many those follow',
    paths_per_profile    UInt64  COMMENT 'The cap: a profile with at most this many paths got every one, any other a sample of about this many'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY snapshot_id;

-- What a nightly run fits of its own follow graph to weigh the middle of a friend-of-friend
-- path (pipeline/materialize/path-weight-fit.ts): Adamic-Adar's 1 / ln(e + degree) or
-- resource allocation's 1 / degree, whichever finds more of the follows it held out. One row
-- per run.

CREATE TABLE IF NOT EXISTS mat_held_out_follows
(
    snapshot_id  UInt32  COMMENT 'Run',
    p            UInt32  COMMENT 'A profile the fit sampled (dense id): two follows or more, in the order of a hash, as many as REC_FIT_HELD_OUT and as fit REC_FIT_PATHS paths in all (mat_path_counts), each with at most a hundredth of them',
    t            UInt32  COMMENT 'One of its newest tenth of follows (at least one), held out with its return, if any, while the fit ranks p''s candidates'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY p;

CREATE TABLE IF NOT EXISTS mat_path_weight_fit
(
    snapshot_id                UInt32   COMMENT 'Run',
    held_out                   UInt64   COMMENT 'Follows held out (mat_held_out_follows), each with its return, if any: the newest tenth, at least one, of each sampled profile''s follows',
    found_adamic_adar          UInt64   COMMENT 'Of those, the held-out follows that ranking by 1 / ln(e + degree) put in the first REC_FIT_PLACES of the profile''s candidates',
    found_resource_allocation  UInt64   COMMENT 'The same, ranking by 1 / degree',
    only_adamic_adar           UInt64   COMMENT 'Held-out follows that 1 / ln(e + degree) puts in the first REC_FIT_PLACES and 1 / degree does not',
    only_resource_allocation   UInt64   COMMENT 'Held-out follows that 1 / degree puts in the first REC_FIT_PLACES and 1 / ln(e + degree) does not',
    path_weight                Enum8('adamic-adar' = 1, 'resource-allocation' = 2) COMMENT 'What a path''s middle weighs in the run''s lists: resource-allocation when only_resource_allocation exceeds only_adamic_adar by more than twice the square root of their sum (a sign test at about 95 %), else adamic-adar'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY snapshot_id;

ALTER TABLE recommendations COMMENT COLUMN fof_score 'Signal 4: sum over users who follow the candidate and whom the profile follows or is followed by, of what each weighs as a path''s middle (mat_path_weight_fit.path_weight: 1 / ln(e + their follow count) or 1 / their follow count), plus the run''s follows_you_weight (mat_scoring_fit) if the candidate follows the profile; 0 for a most followed profile that fills the list';

ALTER TABLE mat_follow_edges COMMENT COLUMN src_weight 'Adamic-Adar''s weight of src as the middle of a friend-of-friend path, 1 / ln(e + src_degree); the run''s lists use it or 1 / src_degree, as mat_path_weight_fit.path_weight says';

ALTER TABLE mat_fof_edges COMMENT COLUMN src_weight 'Adamic-Adar''s weight of src as the middle of a friend-of-friend path, 1 / ln(e + src_degree); the run''s lists use it or 1 / src_degree, as mat_path_weight_fit.path_weight says';
