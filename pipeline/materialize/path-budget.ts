/**
 * How many friend-of-friend paths each profile of a run gets. A profile's paths in all are
 * Σ over whom it follows, and over its followers it does not follow, of how many those
 * follow; a profile with at most the run's paths per profile gets every one of them, any
 * other a sample of about that many (friends-of-friends.ts).
 *
 * The run's cost grows with the paths it counts in all, so REC_FOF_PATHS_PER_RUN budgets them
 * for the whole run, and the paths per profile are the largest cap under which every profile's
 * paths, each cut at the cap, fit in that budget (water-filling): most profiles have fewer
 * paths than their equal share and leave the rest to the profiles near hubs. A small world
 * gets every path of every profile; a large one at least REC_FOF_PATHS each, whatever the
 * budget. docs/quality.md measures what every path is worth.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { degreesSql, everyFollowSql, notFollowedBackSql, type Follows } from './caller-facts.ts';
import { readRunRow, runValueSql } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';

/** (p, paths): each caller's friend-of-friend paths in all, counted without bounds. */
function pathCountsSql(snapshotId: number, callers: Follows): SqlFragment {
  const hops = sql`SELECT p, f FROM (${callers.followees}) UNION ALL SELECT p, c AS f FROM (${notFollowedBackSql(callers)})`;
  return sql`
    SELECT p, sum(degree) AS paths
    FROM (${hops}) AS hops
    ALL INNER JOIN (${degreesSql(snapshotId, callers, sql`SELECT f FROM (${hops})`)}) AS degrees USING f
    GROUP BY p`;
}

/** (p): the callers whose paths in all number at most `paths`: they get every one (for an on-demand list). */
export function exactCallersSql(snapshotId: number, callers: Follows, paths: SqlFragment): SqlFragment {
  return sql`SELECT p FROM (${pathCountsSql(snapshotId, callers)}) WHERE paths <= ${paths}`;
}

/**
 * mat_path_counts: every profile's paths in all, counted once per run: the budget, the first
 * hops, the follower hops and the fit's sample all read them, and each counting is a join of
 * every follow.
 */
export function pathCountsTableSql(snapshotId: number): SqlFragment {
  return sql`
    INSERT INTO mat_path_counts (snapshot_id, p, paths)
    SELECT ${snapshotId}, p, paths FROM (${pathCountsSql(snapshotId, everyFollowSql(snapshotId))})`;
}

/** (p): the run's profiles that get every path. */
export function exactProfilesSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`SELECT p FROM mat_path_counts WHERE snapshot_id = ${snapshotId} AND paths <= ${pathsPerProfileSql(snapshotId, params)}`;
}

/**
 * mat_path_budget: the run's paths per profile. With each profile's paths sorted, a_1 ≤ … ≤ a_n,
 * and S_k their sum up to k: the first k profiles get every path under a cap c ≥ a_k when
 * S_k + (n - k) × c stays within the budget, so k is the number of profiles for which
 * S_k + (n - k) × a_k does, and the cap is what the budget leaves the other n - k each (all
 * of the largest when k = n).
 */
export function pathBudgetSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const budget = params.fof.pathsPerRun;
  return sql`
    INSERT INTO mat_path_budget (snapshot_id, profiles_with_paths, paths_in_all, paths_per_profile)
    SELECT ${snapshotId}, n, arraySum(counts), greatest(toUInt64(${params.fof.paths}), cap)
    FROM
    (
        -- intDiv is worked out on both branches of the if: greatest() keeps it off 0 when k = n.
        SELECT counts, length(counts) AS n, arrayCumSum(counts) AS below,
               arrayCount(total -> total <= ${budget}, arrayMap((a, s, i) -> s + toUInt64(n - i) * a, counts, below, arrayEnumerate(counts))) AS k,
               if(k = n, if(n = 0, 0, counts[n]), intDiv(toUInt64(${budget} - if(k = 0, 0, below[k])), greatest(1, toUInt64(n - k)))) AS cap
        FROM (SELECT arraySort(groupArray(toUInt64(paths))) AS counts FROM mat_path_counts WHERE snapshot_id = ${snapshotId})
    )`;
}

/**
 * The run's paths per profile, as a scalar for the statements that bound the paths; for a
 * snapshot written before the budget existed, REC_FOF_PATHS. Read from the snapshot, so that
 * an on-demand list gets what its nightly run gave.
 */
export function pathsPerProfileSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return runValueSql(snapshotId, 'mat_path_budget', sql`paths_per_profile`, sql`toUInt64(${params.fof.paths})`);
}

const pathBudgetRow = z.object({
  profiles_with_paths: z.coerce.number(),
  paths_in_all: z.coerce.number(),
  paths_per_profile: z.coerce.number(),
});
export type PathBudget = z.infer<typeof pathBudgetRow>;

/** The run's budget as it fell (for its log line). */
export async function readPathBudget(ch: ClickHouse, snapshotId: number): Promise<PathBudget | undefined> {
  return readRunRow(ch, 'mat_path_budget', snapshotId, pathBudgetRow);
}
