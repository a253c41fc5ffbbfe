/**
 * The recommender's settings, read once from config: what the load phase cleans the inputs
 * by, how much a run may rank, and the memory cap of its ClickHouse statements. The nightly
 * run, a list computed on demand and `soulgraph eval` take them from here alike.
 */
import os from 'node:os';
import type { QuerySettings } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { LoadRules } from './load/world-loader.ts';
import type { PathBudget } from './rank/path-budget.ts';
import type { RankSettings } from './rank/ranker.ts';

/** Follows the walks of one profile read at most (rank/walk-source.ts): about what its paths cost. */
export const WALK_BUDGET = 2_000;

export interface EngineSettings {
  load: LoadRules;
  topK: number;
  /** Paths of a whole run, and the least each profile gets (rank/path-budget.ts). */
  pathsPerRun: number;
  pathsPerProfile: number;
  walkBudget: number;
  perCollection: number;
  /** Profiles whose newest follows the fit holds out (fit/model-fit.ts). */
  fitProfiles: number;
  servingDepth: number;
  /** Threads a worker process ranks on. */
  threads: number;
}

export function engineSettings(config: Config): EngineSettings {
  return {
    load: {
      dustWei: config.REC_DUST_WEI,
      hubCounterparties: config.REC_HUB_COUNTERPARTIES,
      denyAddresses: config.REC_DENY_ADDRESSES,
      halfLifeDays: config.REC_COUNTERPARTY_HALF_LIFE_DAYS,
      nftMaxHolders: config.REC_NFT_MAX_HOLDERS,
      nftSpamContracts: config.REC_NFT_SPAM_CONTRACTS,
    },
    topK: config.REC_TOP_K,
    pathsPerRun: config.REC_FOF_PATHS_PER_RUN,
    pathsPerProfile: config.REC_FOF_PATHS,
    walkBudget: WALK_BUDGET,
    perCollection: config.REC_NFT_CANDIDATES_PER_COLLECTION,
    fitProfiles: config.REC_FIT_HELD_OUT,
    servingDepth: config.SERVING_DEPTH,
    threads: config.RANK_THREADS > 0 ? config.RANK_THREADS : os.availableParallelism(),
  };
}

/** What the ranker needs of the settings, with the run's path cap (rank/path-budget.ts). */
export function rankSettingsOf(settings: EngineSettings, budget: PathBudget): RankSettings {
  return { topK: settings.topK, pathCap: budget.cap, walkBudget: settings.walkBudget, perCollection: settings.perCollection };
}

/**
 * Settings of every heavy statement of a run (the load's reads, tags, the mirrors re-sync): a
 * memory cap, with spilling well before it, and an entry in system.query_log for operators.
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
