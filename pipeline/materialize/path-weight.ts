/**
 * What the middle f of a friend-of-friend path weighs, by how many f follows (its degree):
 * Adamic-Adar's 1 / ln(e + degree) or resource allocation's 1 / degree, whichever the run's
 * fit chose (path-weight-fit.ts).
 */
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { runValueSql } from './run-row.ts';

export const PATH_WEIGHTS = ['adamic-adar', 'resource-allocation'] as const;
export type PathWeight = (typeof PATH_WEIGHTS)[number];

/** What a path's middle weighs under each candidate weight, by its degree. */
export function pathWeightOf(kind: PathWeight, degree: SqlFragment): SqlFragment {
  return kind === 'adamic-adar' ? sql`1 / log(e() + ${degree})` : sql`1 / greatest(1, ${degree})`;
}

/**
 * What a path's middle weighs in this run's lists: the weight its fit chose, Adamic-Adar
 * for a snapshot written before the fit existed (or one whose fit is not written yet).
 */
export function pathWeightSql(snapshotId: number, degree: SqlFragment): SqlFragment {
  return sql`if(${resourceAllocationChosenSql(snapshotId)} = 1, ${pathWeightOf('resource-allocation', degree)}, ${pathWeightOf('adamic-adar', degree)})`;
}

/** 1 where the run's fit chose resource allocation, else 0 (a scalar subquery). */
export function resourceAllocationChosenSql(snapshotId: number): SqlFragment {
  return runValueSql(snapshotId, 'mat_path_weight_fit', sql`path_weight = 'resource-allocation'`, sql`0`);
}
