-- Bounded candidate expansion (pipeline/materialize/bounded-lists.ts): capped lists of the
-- working set that each bucket joins instead of the whole follow graph or every holder of a
-- collection, so that a profile's candidate paths stay bounded whatever the hubs.
-- Partitioned by snapshot_id like the rest of the working set (010).

-- The follow edges a friend-of-friend path may use beyond the caller's own follows: only
-- edges within one of the two bounds below are kept.
CREATE TABLE IF NOT EXISTS mat_fof_edges
(
    snapshot_id  UInt32   COMMENT 'Run',
    src          UInt32   COMMENT 'Follower (dense id): follows dst in the app now',
    dst          UInt32   COMMENT 'Followee (dense id)',
    src_degree   UInt32   COMMENT 'How many profiles src follows',
    src_weight   Float64  COMMENT 'What src weighs as the middle of a friend-of-friend path: 1 / ln(e + src_degree)',
    dst_rank     UInt32   COMMENT 'Place of dst among the profiles src follows, most followed first (then lower dense id); src passes dst on as a candidate when dst_rank <= REC_FOF_PER_FOLLOWEE',
    src_rank     UInt32   COMMENT 'Place of src among the followers of dst, most followed first (then lower dense id); when dst follows a caller, the path through src is looked for when src_rank <= REC_FOF_PER_FOLLOWER'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (src, dst);

-- The holders each eligible collection recommends to its other holders.
CREATE TABLE IF NOT EXISTS mat_collection_candidates
(
    snapshot_id  UInt32  COMMENT 'Run',
    collection   UInt32  COMMENT 'Collection (mat_collections)',
    pid          UInt32  COMMENT 'Profile (dense id) holding it, recommended to the other holders',
    holder_rank  UInt32  COMMENT 'Place of pid among the holders, most followed first (then lower dense id); at most REC_NFT_CANDIDATES_PER_COLLECTION per collection'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (collection, pid);
