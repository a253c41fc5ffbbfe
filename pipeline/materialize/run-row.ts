/**
 * The tables a run writes one row to (mat_scoring_fit, mat_path_budget, mat_path_weight_fit):
 * what it measured and chose, read as a scalar by the SQL that uses it, and as a row for the
 * run's log line and the tools that print it.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { identifier, joinSql, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';

/**
 * The run's `value` (an expression over `table`'s columns), as a scalar subquery; `fallback`
 * for a snapshot written before the table existed, which has no row.
 */
export function runValueSql(snapshotId: number, table: string, value: SqlFragment, fallback: SqlFragment): SqlFragment {
  return sql`(SELECT if(count() = 0, ${fallback}, max(${value})) FROM ${identifier(table)} WHERE snapshot_id = ${snapshotId})`;
}

/** The run's row of `table`, the columns `row` names, validated by it. */
export async function readRunRow<Shape extends z.ZodRawShape>(
  ch: ClickHouse,
  table: string,
  snapshotId: number,
  row: z.ZodObject<Shape>,
): Promise<z.infer<z.ZodObject<Shape>> | undefined> {
  const columns = joinSql(Object.keys(row.shape).map((column) => identifier(column)), ', ');
  const [first] = await ch.query(sql`SELECT ${columns} FROM ${identifier(table)} WHERE snapshot_id = ${snapshotId}`, row);
  return first;
}
