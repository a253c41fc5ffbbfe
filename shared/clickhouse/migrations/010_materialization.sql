-- The nightly materialization (pipeline/materialize): the working set a run computes on,
-- and recommendations rewritten bucket by bucket.
--
-- Every table here is PARTITION BY snapshot_id (recommendations by snapshot and bucket):
-- a run writes under its own snapshot id, and retention drops a snapshot by partition.

-- recommendations: now partitioned by (snapshot_id, bucket) so that a bucket job that is
-- retried can drop exactly what its failed attempt wrote, and with the part each signal
-- contributed. Its rows are derived (a new run rebuilds them), so the table is recreated;
-- the snapshots that pointed at the old rows are marked dropped, and a cursor into one
-- answers "expired" (10203) as it would after retention.
DROP TABLE IF EXISTS recommendations;

CREATE TABLE IF NOT EXISTS recommendations
(
    snapshot_id         UInt32   COMMENT 'Snapshot the row belongs to (see recommendation_snapshots)',
    bucket              UInt16   COMMENT 'User bucket that computed it (dense id modulo the bucket count); 65535 = computed on demand for a new user',
    profile_id          String   COMMENT 'Profile the recommendation is for',
    rank                UInt32   COMMENT '1 = best; unique per (snapshot_id, profile_id), no gaps',
    candidate_id        String   COMMENT 'Recommended profile',
    score               Float64  COMMENT 'Combined score: the weighted sum of the four signal scores below',
    reason_kind         Enum8('social' = 1, 'counterparty' = 2, 'nft' = 3, 'friend_of_friend' = 4) COMMENT 'Signal that contributed most to score',
    reason_chain_id     UInt32   COMMENT 'Chain of a counterparty or nft reason; 0 otherwise',
    reason_subject      String   COMMENT 'Collection name of an nft reason, profile_id of the followed user of a friend_of_friend reason; empty otherwise',
    social_score        Float64  COMMENT 'Signal 1: 1 if the profile follows the candidate''s handle on the social network',
    counterparty_score  Float64  COMMENT 'Signal 2: log(1 + recency-weighted interactions) between their addresses',
    nft_score           Float64  COMMENT 'Signal 3: sum over collections both hold of 1 / ln(1 + holders)',
    fof_score           Float64  COMMENT 'Signal 4: sum over followed users who follow the candidate of 1 / ln(e + their follow count), plus REC_FOLLOWS_YOU_BONUS if the candidate follows the profile'
)
ENGINE = MergeTree
PARTITION BY (snapshot_id, bucket)
ORDER BY (profile_id, rank)
SETTINGS index_granularity = 256;

INSERT INTO recommendation_snapshots (snapshot_id, status, created_at, updated_at)
SELECT snapshot_id, 'dropped', created_at, greatest(now(), updated_at + 1)
FROM recommendation_snapshots FINAL
WHERE status != 'dropped';

-- The working set of a run: dense integer ids and the per-profile facts the signals join on.
-- Kept until retention drops the snapshot, because on-demand recommendations for new users
-- join the newest snapshot's working set (pipeline/materialize/cold-start.ts).

CREATE TABLE IF NOT EXISTS mat_profiles
(
    snapshot_id      UInt32  COMMENT 'Run that assigned the ids',
    pid              UInt32  COMMENT 'Dense id, 1..n in profile_id order (so ordering by pid is ordering by profile_id)',
    profile_id       String  COMMENT 'The profile',
    social_username  String  COMMENT 'Its social handle (lowercase), or empty'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY pid;

CREATE TABLE IF NOT EXISTS mat_addresses
(
    snapshot_id  UInt32  COMMENT 'Run',
    address      String  COMMENT 'Wallet address, lowercase',
    pid          UInt32  COMMENT 'Dense id of the profile the address belongs to'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY address;

CREATE TABLE IF NOT EXISTS mat_follow_edges
(
    snapshot_id  UInt32   COMMENT 'Run',
    src          UInt32   COMMENT 'Follower (dense id): follows dst in the app now',
    dst          UInt32   COMMENT 'Followee (dense id)',
    src_degree   UInt32   COMMENT 'How many profiles src follows',
    src_weight   Float64  COMMENT 'What src weighs as the middle of a friend-of-friend path: 1 / ln(e + src_degree)'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (src, dst);

CREATE TABLE IF NOT EXISTS mat_social_follows
(
    snapshot_id  UInt32  COMMENT 'Run',
    src          UInt32  COMMENT 'Profile (dense id) whose handle follows followee on the social network now',
    followee     String  COMMENT 'Followed handle, lowercase'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (src, followee);

CREATE TABLE IF NOT EXISTS mat_excluded_addresses
(
    snapshot_id  UInt32  COMMENT 'Run',
    address      String  COMMENT 'Address whose interactions count for nobody',
    reason       Enum8('label' = 1, 'well-known' = 2, 'deny-list' = 3, 'hub' = 4) COMMENT 'label: contract, exchange, bridge, ... in address_labels; well-known: zero or burn address; deny-list: REC_DENY_ADDRESSES; hub: more distinct counterparties than REC_HUB_COUNTERPARTIES'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY address;

CREATE TABLE IF NOT EXISTS mat_interactions
(
    snapshot_id   UInt32   COMMENT 'Run',
    src           UInt32   COMMENT 'Profile (dense id) one of whose addresses interacted with counterparty',
    counterparty  String   COMMENT 'The other side''s address, lowercase (not excluded; dust does not count)',
    chain_id      UInt32   COMMENT 'Chain of the interactions',
    interactions  UInt32   COMMENT 'Transactions and token transfers between them, either direction',
    weight        Float64  COMMENT 'Their sum, each halved every REC_COUNTERPARTY_HALF_LIFE_DAYS before the newest block time'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (src, counterparty, chain_id);

CREATE TABLE IF NOT EXISTS mat_holdings
(
    snapshot_id  UInt32  COMMENT 'Run',
    pid          UInt32  COMMENT 'Profile (dense id) holding a token of the collection on any of its addresses',
    chain_id     UInt32  COMMENT 'Collection chain',
    contract     String  COMMENT 'Collection contract, lowercase'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (chain_id, contract, pid);

-- Only the collections that can say something about a pair: held by 2..REC_NFT_MAX_HOLDERS
-- profiles and not on REC_NFT_SPAM_CONTRACTS.
CREATE TABLE IF NOT EXISTS mat_collections
(
    snapshot_id  UInt32   COMMENT 'Run',
    collection   UInt32   COMMENT 'Dense id and rarity rank: 1 = rarest (fewest holders, then chain_id, contract); a reason names the rarest shared collection',
    chain_id     UInt32   COMMENT 'Collection chain',
    contract     String   COMMENT 'Collection contract, lowercase',
    name         String   COMMENT 'Name shown in reasons: the collection name, else its symbol, else the contract',
    holders      UInt32   COMMENT 'Profiles holding it',
    weight       Float64  COMMENT '1 / ln(1 + holders): rare collections say more than popular ones'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY collection;

CREATE TABLE IF NOT EXISTS mat_collection_holders
(
    snapshot_id  UInt32  COMMENT 'Run',
    collection   UInt32  COMMENT 'Collection (mat_collections)',
    pid          UInt32  COMMENT 'Profile (dense id) holding it'
)
ENGINE = MergeTree
PARTITION BY snapshot_id
ORDER BY (collection, pid);
