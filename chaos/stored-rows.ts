/** What a scenario found in ClickHouse: logical rows and duplicates under FINAL, and the rejects of a source. */
import { z } from 'zod';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { identifier, joinSql, sql } from '../shared/clickhouse/sql-literal.ts';
import type { Config } from '../shared/config.ts';

export interface StoredRows {
  found: number;
  duplicates: number;
}

const counts = z.object({ logical: z.coerce.number(), keys: z.coerce.number() });

/** count() FINAL, and how many of those rows repeat a key (key columns given as identifiers). */
export async function storedRows(config: Config, table: string, keyColumns: string[], chainId?: number): Promise<StoredRows> {
  const ch = createClickHouse(config);
  try {
    const key = joinSql(keyColumns.map((column) => identifier(column)), ', ');
    const where = chainId === undefined ? sql`` : sql`WHERE chain_id = ${chainId}`;
    const [row] = await ch.query(sql`SELECT count() AS logical, uniqExact(${key}) AS keys FROM ${identifier(table)} FINAL ${where}`, counts);
    return { found: row!.logical, duplicates: row!.logical - row!.keys };
  } finally {
    await ch.close();
  }
}

/** The line numbers rejected from `source`, ascending, with their reasons. */
export async function rejectedLines(config: Config, kind: string, source: string): Promise<{ line: number; reason: string }[]> {
  const ch = createClickHouse(config);
  try {
    return await ch.query(
      sql`SELECT line, reason FROM ingest_rejects FINAL WHERE kind = ${kind} AND source = ${source} ORDER BY line`,
      z.object({ line: z.coerce.number(), reason: z.string() }),
    );
  } finally {
    await ch.close();
  }
}
