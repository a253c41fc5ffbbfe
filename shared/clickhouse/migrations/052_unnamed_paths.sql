-- Paths no reason can name (pipeline/materialize/unnamed-paths.ts): a caller and a candidate
-- who follow the same profile, or a candidate who follows someone who follows the caller.
-- They reorder each list's first REC_TOP_K where the run's fit on its own held-out follows
-- finds that they rank them better beyond chance; this table is what the fit found.

CREATE TABLE IF NOT EXISTS mat_unnamed_paths_fit
(
    snapshot_id     UInt32  COMMENT 'Run',
    held_out        UInt64  COMMENT 'Follows held out (mat_held_out_follows), their returns left in place as followers (reordering ranks followers and the rest apart)',
    found_named     UInt64  COMMENT 'Of those, the held-out follows that the lists'' ranking (named paths, with the run''s path weight and recency) puts in the first REC_FIT_PLACES of the profile''s candidates',
    found_unnamed   UInt64  COMMENT 'The same, the first REC_TOP_K of each profile reordered with the unnamed paths (half a path''s weight each) between it and each of them',
    only_named      UInt64  COMMENT 'Held-out follows the named ranking puts in the first REC_FIT_PLACES and the reordered one does not',
    only_unnamed    UInt64  COMMENT 'Held-out follows the reordered ranking puts in the first REC_FIT_PLACES and the named one does not',
    unnamed         UInt8   COMMENT '1 when the run''s lists are reordered with unnamed paths: REC_UNNAMED_PATHS=always, or fit when only_unnamed exceeds only_named by more than twice the square root of their sum (a sign test at about 95 %); else 0'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY snapshot_id;
