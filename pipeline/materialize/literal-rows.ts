/**
 * Rows known in advance written into a statement as a relation: each column an array literal,
 * ARRAY JOINed. A list computed on demand writes its caller's facts this way (cold-start.ts):
 * a subquery would be read again wherever the ranking names it, literal rows cost nothing to
 * read again.
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { identifier, joinSql, sql, SqlFragment } from '../../shared/clickhouse/sql-literal.ts';

/** Float64 values make the round trip through JSON and JavaScript exactly (shortest round-trip text both ways, measured on both engines). */
export type ColumnType = 'UInt8' | 'UInt16' | 'UInt32' | 'Float64' | 'DateTime';

/**
 * (p, columns...): rows of the one caller `pid`, each column of `types` given as an array in
 * `columns` (all of one length); with no rows, the same columns `WHERE 0`.
 */
export function literalRowsSql(pid: number, types: Record<string, ColumnType>, columns: Record<string, readonly number[]>): SqlFragment {
  const names = Object.keys(types);
  const cast = (name: string, value: SqlFragment) => sql`${new SqlFragment(`to${types[name]!}`)}(${value}) AS ${identifier(name)}`;
  const p = sql`toUInt32(${pid}) AS p`;
  if (columns[names[0]!]!.length === 0) return sql`SELECT ${p}, ${joinSql(names.map((name) => cast(name, sql`0`)), ', ')} WHERE 0`;
  const values = (name: string) => identifier(`${name}_values`);
  const value = (name: string) => identifier(`${name}_value`);
  return sql`
    SELECT ${p}, ${joinSql(names.map((name) => cast(name, value(name))), ', ')}
    FROM (SELECT ${joinSql(names.map((name) => sql`${columns[name]!} AS ${values(name)}`), ', ')})
    ARRAY JOIN ${joinSql(names.map((name) => sql`${values(name)} AS ${value(name)}`), ', ')}`;
}

/** Rows read back as the columns literalRowsSql takes. */
function columnsOf(rows: readonly Record<string, number>[], names: readonly string[]): Record<string, number[]> {
  return Object.fromEntries(names.map((name) => [name, rows.map((row) => row[name]!)]));
}

/**
 * The rows a statement answers (`select`, with a column of each name in `types`), read once,
 * in the order of `orderBy`, and written out as the literal rows of the one caller `pid`.
 */
export async function writtenOutRowsSql(
  ch: ClickHouse,
  pid: number,
  types: Record<string, ColumnType>,
  select: SqlFragment,
  orderBy: string,
  settings: QuerySettings,
): Promise<SqlFragment> {
  const names = Object.keys(types);
  const row = z.object(Object.fromEntries(names.map((name) => [name, z.coerce.number()])));
  const columns = joinSql(names.map((name) => identifier(name)), ', ');
  const rows = await ch.query(sql`SELECT ${columns} FROM (${select}) ORDER BY ${identifier(orderBy)}`, row, settings);
  return literalRowsSql(pid, types, columnsOf(rows, names));
}
