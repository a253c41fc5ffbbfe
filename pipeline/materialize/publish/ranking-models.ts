/**
 * The model that ranked each snapshot, kept with it (ranking_models, migration 057): the
 * weights the run fitted to its own newest follows (or the defaults), what the fit saw, and
 * how long the run's load and fit took. Lists computed on demand for a snapshot rank with its
 * model; analysts read how it changes from night to night.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';
import type { FitReport } from '../fit/model-fit.ts';
import type { LoadReport } from '../load/world-loader.ts';
import type { PathBudget } from '../rank/path-budget.ts';
import { FEATURES } from '../rank/features.ts';
import { DEFAULT_MODEL, rankingModelSchema, type RankingModel } from '../rank/ranking-model.ts';

export async function storeRankingModel(ch: ClickHouse, snapshotId: number, fit: FitReport, load: LoadReport, budget: PathBudget): Promise<void> {
  await ch.insert('ranking_models', [
    {
      snapshot_id: snapshotId,
      computed_at: Math.floor(Date.now() / 1000),
      source: fit.model.source,
      features: [...FEATURES],
      weights: fit.model.weights,
      held_out_profiles: fit.profiles,
      held_out_follows: fit.heldOut,
      found_as_candidates: fit.candidates,
      found_by_default: fit.foundByDefault,
      found_by_fitted: fit.foundByFitted,
      path_cap: Math.min(budget.cap, 4_294_967_295),
      paths_in_all: budget.pathsInAll,
      profiles: load.profiles,
      follows: load.follows,
      load_seconds: load.seconds,
      fit_seconds: fit.seconds,
    },
  ]);
}

const modelRow = z.object({ source: z.enum(['fitted', 'default']), features: z.array(z.string()), weights: z.array(z.number()) });

/**
 * The model that ranked `snapshotId`; the defaults when it has none (a snapshot written before
 * the engine kept its model) or one over other features (a release that changed them).
 */
export async function rankingModelOf(ch: ClickHouse, snapshotId: number): Promise<RankingModel> {
  const [row] = await ch.query(
    sql`SELECT toString(source) AS source, features, weights FROM ranking_models FINAL WHERE snapshot_id = ${snapshotId}`,
    modelRow,
  );
  if (!row || row.features.join(',') !== FEATURES.join(',')) return DEFAULT_MODEL;
  return rankingModelSchema.parse({ weights: row.weights, source: row.source });
}
