-- The path-weight fit and the recency fit (pipeline/materialize/held-out-places.ts) ask the
-- same held-out follows the same question under different weighings. Finding every path of
-- the sampled profiles is most of a fit's work, so the run finds them once and writes each
-- held-out follow's place under all four weighings here; each fit counts its two columns.

CREATE TABLE IF NOT EXISTS mat_held_out_places
(
    snapshot_id                    UInt32  COMMENT 'Run',
    p                              UInt32  COMMENT 'A profile the fit sampled (mat_held_out_follows.p)',
    t                              UInt32  COMMENT 'One of its held-out follows (mat_held_out_follows.t), hidden with its return, if any',
    by_adamic_adar                 UInt32  COMMENT 'How many of p''s candidates score more than t, each path weighing 1 / ln(e + degree) of its middle, counted up to REC_FIT_PLACES (a fit asks only whether t comes before that place); REC_FIT_PLACES where t is no candidate',
    by_resource_allocation         UInt32  COMMENT 'The same, each path weighing 1 / degree',
    by_adamic_adar_recent          UInt32  COMMENT 'The same as by_adamic_adar, each path also weighed by when it was made (docs/materialization.md, "When a path was made")',
    by_resource_allocation_recent  UInt32  COMMENT 'The same as by_resource_allocation, each path also weighed by when it was made'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (p, t);
