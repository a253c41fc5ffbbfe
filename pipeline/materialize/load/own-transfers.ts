/**
 * One caller's own transfers, for a list computed on demand (on-demand lists): which rows of each
 * table of transfers touch its addresses, so that its interactions and NFTs are read from those
 * rows alone (inputs-sql.ts ownRowsSql) and FINAL merges only their versions.
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../../shared/clickhouse/client.ts';
import { identifier, inList, joinSql, literal, sql, SqlFragment } from '../../../shared/clickhouse/sql-literal.ts';

/** The ORDER BY of each table of transfers (migrations 003 and 004): what FINAL merges versions by, and what finds a row's versions. */
export const TRANSFER_KEYS = {
  transactions: ['chain_id', 'hash'],
  token_transfers: ['chain_id', 'tx_hash', 'log_index'],
  nft_transfers: ['chain_id', 'tx_hash', 'log_index', 'token_id'],
} as const;

export type TransferTable = keyof typeof TRANSFER_KEYS;
const TRANSFER_TABLES = Object.keys(TRANSFER_KEYS) as TransferTable[];

/**
 * One caller's own transfers: its addresses, and for each table of transfers a condition on
 * its key that holds for the rows that touch them: `(key) IN (<the keys>)` written out (`0`
 * when none does), or `(key) GLOBAL IN (<a subquery that finds them>)` (ownTransfersSql).
 */
export interface OwnTransfers {
  /** At least one. */
  addresses: readonly string[];
  touching: Record<TransferTable, SqlFragment>;
}

/**
 * (key columns): the keys of the rows of `table` that touch `addresses` (from or to), from
 * transfers_by_address (migration 055), which is ordered by the address's hash: a few ranges,
 * not a scan of the table's two address columns (the address itself rules out another with
 * the same hash). It may hold keys whose rows are gone (a reorg's): the statements that read
 * the rows by these keys check the addresses again (signal-inputs.ts).
 */
export function transferKeysSql(table: TransferTable, addresses: readonly string[]): SqlFragment {
  const columns = joinSql(TRANSFER_KEYS[table].map(indexedKeyColumn), ', ');
  const hashes = inList(addresses.map((address) => sql`cityHash64(${address})`));
  return sql`
    SELECT DISTINCT ${columns} FROM transfers_by_address
    WHERE address_hash IN ${hashes} AND address IN ${inList(addresses)} AND source = ${table}`;
}

/** A key column as transfers_by_address holds it, named as in its table: a transaction's `hash` is `tx_hash` there. */
function indexedKeyColumn(column: string): SqlFragment {
  return column === 'hash' ? sql`tx_hash AS hash` : identifier(column);
}

/**
 * The caller's own transfers found by subqueries as each statement runs. GLOBAL: on a cluster
 * the tables are Distributed, and a plain IN over one inside a query over it is refused
 * (distributed_product_mode); the keys are found once and sent to the shards. On ClickHouse
 * 18.16 such a set leaves FINAL over the whole table (0.6-0.8 s for one caller's transactions
 * in a 100 k-profile world, against 0.05 s by the keys written out): writtenOutTransfers
 * writes them out where there are few enough.
 */
export function ownTransfersSql(addresses: readonly string[]): OwnTransfers {
  const found = (table: TransferTable) => sql`(${keyOf(table)}) GLOBAL IN (${transferKeysSql(table, addresses)})`;
  return { addresses, touching: Object.fromEntries(TRANSFER_TABLES.map((table) => [table, found(table)])) as OwnTransfers['touching'] };
}

/** A table's key columns, as a list. */
export function keyOf(table: TransferTable): SqlFragment {
  return joinSql(TRANSFER_KEYS[table].map((column) => identifier(column)), ', ');
}

/** Past this many rows of one table touching its addresses, a caller's transfers are found as its statements run (the subquery, not the keys written out): about 5 MB of statement. */
const MAX_WRITTEN_OUT_TRANSFERS = 50_000;

const keyRow = z.object({
  source: z.enum(['transactions', 'token_transfers', 'nft_transfers']),
  chain_id: z.coerce.number(),
  tx_hash: z.string(),
  log_index: z.coerce.number(),
  token_id: z.string(),
});

/**
 * The keys of every table's rows that touch `addresses`, in one statement (a newcomer waits for
 * it): at most MAX_WRITTEN_OUT_TRANSFERS + 1 per table, which tells a table with more.
 */
export function allTransferKeysSql(addresses: readonly string[]): SqlFragment {
  const hashes = inList(addresses.map((address) => sql`cityHash64(${address})`));
  return sql`
    SELECT source, chain_id, tx_hash, log_index, token_id FROM transfers_by_address
    WHERE address_hash IN ${hashes} AND address IN ${inList(addresses)}
    GROUP BY source, chain_id, tx_hash, log_index, token_id
    LIMIT ${MAX_WRITTEN_OUT_TRANSFERS + 1} BY source`;
}

/**
 * The caller's own transfers with their keys read once and written out: the set a subquery
 * makes leaves ClickHouse 18.16 merging every row of the table with FINAL, written-out keys
 * let it read only theirs (by its ORDER BY). A table with more rows than
 * MAX_WRITTEN_OUT_TRANSFERS touching them keeps the subquery.
 */
export async function writtenOutTransfers(ch: ClickHouse, addresses: readonly string[], settings: QuerySettings): Promise<OwnTransfers> {
  const found = ownTransfersSql(addresses);
  const keys: Record<TransferTable, string[]> = { transactions: [], token_transfers: [], nft_transfers: [] };
  for (const row of await ch.query(allTransferKeysSql(addresses), keyRow, settings)) {
    const values = { chain_id: row.chain_id, hash: row.tx_hash, tx_hash: row.tx_hash, log_index: row.log_index, token_id: row.token_id };
    keys[row.source].push(`(${TRANSFER_KEYS[row.source].map((column) => literal(values[column])).join(', ')})`);
  }
  const touching = (table: TransferTable): SqlFragment => {
    if (keys[table].length > MAX_WRITTEN_OUT_TRANSFERS) return found.touching[table];
    if (keys[table].length === 0) return sql`0`;
    return sql`(${keyOf(table)}) IN ${inList(keys[table].map((tuple) => new SqlFragment(tuple)))}`;
  };
  return { addresses, touching: { transactions: touching('transactions'), token_transfers: touching('token_transfers'), nft_transfers: touching('nft_transfers') } };
}
