/**
 * Forces the merges that make ReplacingMergeTree drop superseded rows, so reads with
 * FINAL stay cheap. ClickHouse merges in the background anyway; this bounds how long
 * duplicates from re-ingestion linger.
 */
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { recordKinds } from '../../shared/records/kinds.ts';

export const COMPACTED_TABLES = [
  ...new Set([...Object.values(recordKinds).map((k) => k.table), 'profile_identities', 'sbt_mints_by_owner', 'ingest_rejects']),
];

export async function compactTables(ch: ClickHouse, onTable: (table: string) => void = () => {}): Promise<void> {
  for (const table of COMPACTED_TABLES) {
    await ch.command(sql`OPTIMIZE TABLE ${identifier(table)} FINAL`);
    onTable(table);
  }
}
