/**
 * The knobs of the recommender, read once from config: signal weights, hygiene thresholds
 * and sizes. Every SQL builder in this folder takes them as one value, so a run, an
 * on-demand computation and the quality evaluation use exactly the same settings.
 */
import type { Config } from '../../shared/config.ts';
import type { QuerySettings } from '../../shared/clickhouse/client.ts';

export interface ScoringParams {
  topK: number;
  weights: { social: number; counterparty: number; nft: number; fof: number };
  /** Native transfers below this (wei) are dust. */
  dustWei: string;
  hubCounterparties: number;
  denyAddresses: string[];
  halfLifeDays: number;
  nftMaxHolders: number;
  nftSpamContracts: string[];
  /** How the follows-you evidence is weighed (scoring-fit.ts). */
  followsYou: { defaultWeight: number; scale: number; max: number; minFollows: number };
  /** Bounds of the friend-of-friend expansion (bounded-lists.ts). */
  fof: { viaFollowees: number; viaFollowers: number; perFollowee: number; passOnDepth: number; perFollower: number; paths: number; pathsPerRun: number };
  /** How the run fits what a path's middle weighs (path-weight-fit.ts). */
  pathFit: { heldOut: number; paths: number; places: number };
  /** Whether paths weigh by when they were made (path-recency.ts). */
  pathRecency: Config['REC_PATH_RECENCY'];
  /** Whether paths no reason can name reorder the lists (unnamed-paths.ts). */
  unnamedPaths: Config['REC_UNNAMED_PATHS'];
  /** Holders each collection recommends. */
  nftCandidatesPerCollection: number;
}

export function scoringParams(config: Config): ScoringParams {
  return {
    topK: config.REC_TOP_K,
    weights: {
      social: config.REC_WEIGHT_SOCIAL,
      counterparty: config.REC_WEIGHT_COUNTERPARTY,
      nft: config.REC_WEIGHT_NFT,
      fof: config.REC_WEIGHT_FOF,
    },
    dustWei: config.REC_DUST_WEI,
    hubCounterparties: config.REC_HUB_COUNTERPARTIES,
    denyAddresses: config.REC_DENY_ADDRESSES,
    halfLifeDays: config.REC_COUNTERPARTY_HALF_LIFE_DAYS,
    nftMaxHolders: config.REC_NFT_MAX_HOLDERS,
    nftSpamContracts: config.REC_NFT_SPAM_CONTRACTS,
    followsYou: {
      defaultWeight: config.REC_FOLLOWS_YOU_BONUS,
      scale: config.REC_FOLLOWS_YOU_SCALE,
      max: config.REC_FOLLOWS_YOU_MAX,
      minFollows: config.REC_FIT_MIN_FOLLOWS,
    },
    fof: {
      viaFollowees: config.REC_FOF_VIA_FOLLOWEES,
      viaFollowers: config.REC_FOF_VIA_FOLLOWERS,
      perFollowee: config.REC_FOF_PER_FOLLOWEE,
      passOnDepth: config.REC_FOF_PASS_ON_DEPTH,
      perFollower: config.REC_FOF_PER_FOLLOWER,
      paths: config.REC_FOF_PATHS,
      pathsPerRun: config.REC_FOF_PATHS_PER_RUN,
    },
    pathFit: { heldOut: config.REC_FIT_HELD_OUT, paths: config.REC_FIT_PATHS, places: config.REC_FIT_PLACES },
    pathRecency: config.REC_PATH_RECENCY,
    unnamedPaths: config.REC_UNNAMED_PATHS,
    nftCandidatesPerCollection: config.REC_NFT_CANDIDATES_PER_COLLECTION,
  };
}

/**
 * Settings of every heavy materialization statement: a memory cap, with spilling well
 * before it, and an entry in system.query_log (time, rows, peak memory) for operators.
 */
export function materializeQuerySettings(config: Pick<Config, 'MATERIALIZE_MAX_MEMORY_BYTES'>): QuerySettings {
  const cap = config.MATERIALIZE_MAX_MEMORY_BYTES;
  const spill = String(Math.floor(cap / 2));
  return {
    max_memory_usage: String(cap),
    max_bytes_before_external_group_by: spill,
    max_bytes_before_external_sort: spill,
    log_queries: 1,
  };
}
