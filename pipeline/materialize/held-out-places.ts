/**
 * mat_held_out_places: where each held-out follow (held-out-ranking.ts) places among its
 * profile's candidates under the four weighings the run's first two fits compare: each path's
 * middle by Adamic-Adar or by resource allocation (path-weight-fit.ts), each plain or also by
 * when the path was made (path-recency.ts). Finding and summing the sampled profiles' paths is
 * most of a fit's work and is the same for all four, so it is done once, and each fit counts
 * two of the columns (held-out-ranking.ts heldOutFitCountsSql).
 */
import { identifier, joinSql, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { heldOutPlacesSql } from './held-out-ranking.ts';
import { recencyOf } from './path-recency.ts';
import { pathWeightOf } from './path-weight.ts';
import type { ScoringParams } from './scoring.ts';

export function heldOutPlacesTableSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const recency = recencyOf(sql`moment`, sql`newest_moment`, sql`follows_anyone`);
  const aa = pathWeightOf('adamic-adar', sql`degree`);
  const ra = pathWeightOf('resource-allocation', sql`degree`);
  // Each weighing's column is by_<its name> (migration 056).
  const weighings = {
    adamic_adar: aa,
    resource_allocation: ra,
    adamic_adar_recent: sql`${aa} * ${recency}`,
    resource_allocation_recent: sql`${ra} * ${recency}`,
  };
  const columns = joinSql(Object.keys(weighings).map((name) => identifier(`by_${name}`)), ', ');
  return sql`
    INSERT INTO mat_held_out_places (snapshot_id, p, t, ${columns})
    SELECT ${snapshotId}, p, t, ${columns}
    FROM (${heldOutPlacesSql(snapshotId, params, weighings)})`;
}
