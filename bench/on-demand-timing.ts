/**
 * A new user's first list at a world's size: a caller the nightly run has no list for waits
 * while the on-demand worker computes one (pipeline/materialize/run/on-demand-lists.ts) from
 * the world it holds resident, at most COLD_START_WAIT_MS before the API answers 503.
 * Newcomers here follow whom a sampled profile of the world follows and hold its wallets
 * (test/support/newcomers.ts), so they have that world's evidence; each list is computed as
 * the worker computes it (its own facts read live, ranked, written) and timed against the
 * baseline of reading its first page back from ClickHouse, side by side.
 */
import { z } from 'zod';
import type { ClickHouse } from '../shared/clickhouse/client.ts';
import { identifier, inList, sql } from '../shared/clickhouse/sql-literal.ts';
import { keyOf, TRANSFER_KEYS, transferKeysSql, type TransferTable } from '../pipeline/materialize/load/own-transfers.ts';
import { listOnDemand, type OnDemandDeps } from '../pipeline/materialize/run/on-demand-lists.ts';
import { addNewcomers } from '../test/support/newcomers.ts';

export interface OnDemandTimes {
  /** Milliseconds to compute each newcomer's list, in the order computed. */
  computeMs: number[];
  /** Milliseconds to read each list's first page back. */
  readMs: number[];
  /** Rows each list got. */
  rows: number[];
  /** Milliseconds to find each newcomer's transfers' keys in transfers_by_address, as its list did (all three tables). */
  keysByAddressMs: number[];
  /** The same keys found by scans of the tables' address columns (the baseline: what a list did before migration 055). */
  keysByScanMs: number[];
}

/**
 * `queryLog`: the engine keeps system.query_log (clickhouse-server; chdb does not), so each
 * list's line also says how many merges were running as it began and which of its
 * statements took longest: what makes a list slow right after a run.
 */
export async function timeOnDemandLists(deps: OnDemandDeps, snapshotId: number, count: number, queryLog: boolean): Promise<OnDemandTimes> {
  const ch = deps.clickhouse;
  const newcomers = await addNewcomers(ch, count, { followedBack: false });
  const times: OnDemandTimes = { computeMs: [], readMs: [], rows: [], keysByAddressMs: [], keysByScanMs: [] };
  for (const newcomer of newcomers) {
    // query_log times statements to the second: each list starts in a second of its own, so
    // that its slowest statements are its own, not the last ones of the list before.
    if (queryLog) await new Promise((resolve) => setTimeout(resolve, 1_005 - (Date.now() % 1_000)));
    const merges = queryLog ? await mergesRunning(ch) : undefined;
    const began = Date.now();
    const computing = performance.now();
    const result = await listOnDemand(deps, snapshotId, newcomer);
    times.computeMs.push(performance.now() - computing);
    console.log(`    on demand ${newcomer}: ${result.rows} rows in ${times.computeMs.at(-1)!.toFixed(0)} ms`);
    if (queryLog) console.log(`      ${merges} merges running as it began; slowest: ${await slowestStatements(ch, began, Date.now())}`);
    if (!result.computed) throw new Error(`${newcomer}: the snapshot already had a list, so nothing was computed on demand`);
    const reading = performance.now();
    await ch.query(
      sql`SELECT rank, candidate_id FROM recommendations WHERE snapshot_id = ${snapshotId} AND profile_id = ${newcomer} ORDER BY rank LIMIT 50`,
      z.object({ rank: z.coerce.number(), candidate_id: z.string() }),
    );
    times.readMs.push(performance.now() - reading);
    times.rows.push(result.rows);
    const keys = await timeTransferKeys(ch, newcomer);
    times.keysByAddressMs.push(keys.byAddressMs);
    times.keysByScanMs.push(keys.byScanMs);
  }
  return times;
}

const addressesRow = z.object({ addresses: z.array(z.string()) });
const keyRow = z.record(z.string(), z.union([z.string(), z.number()]));

/**
 * The newcomer's transfers' keys, found as its list found them (transferKeysSql) and by scans
 * of each table's two address columns, side by side; the two must be the same keys.
 */
async function timeTransferKeys(ch: ClickHouse, newcomer: string): Promise<{ byAddressMs: number; byScanMs: number }> {
  const [profile] = await ch.query(sql`SELECT addresses FROM profiles FINAL WHERE profile_id = ${newcomer}`, addressesRow);
  const addresses = profile!.addresses;
  const near = inList(addresses);
  const keySet = (rows: z.infer<typeof keyRow>[]) => [...new Set(rows.map((row) => JSON.stringify(Object.values(row).map(String))))].sort();
  let byAddressMs = 0;
  let byScanMs = 0;
  for (const table of Object.keys(TRANSFER_KEYS) as TransferTable[]) {
    let started = performance.now();
    const scanned = await ch.query(
      sql`SELECT ${keyOf(table)} FROM ${identifier(table)} WHERE from_address IN ${near} OR to_address IN ${near}`,
      keyRow,
    );
    byScanMs += performance.now() - started;
    started = performance.now();
    const indexed = await ch.query(transferKeysSql(table, addresses), keyRow);
    byAddressMs += performance.now() - started;
    if (JSON.stringify(keySet(scanned)) !== JSON.stringify(keySet(indexed))) {
      throw new Error(`${newcomer}: transfers_by_address gives other ${table} keys than a scan of its address columns`);
    }
  }
  return { byAddressMs, byScanMs };
}

const mergeCount = z.object({ merges: z.coerce.number() });

async function mergesRunning(ch: ClickHouse): Promise<number> {
  const [row] = await ch.query(sql`SELECT count() AS merges FROM system.merges`, mergeCount);
  return row?.merges ?? 0;
}

const statementRow = z.object({ ms: z.coerce.number(), statement: z.string() });

/** The three statements that ended in the span (whole seconds) and took longest, each as its duration and its first words. */
async function slowestStatements(ch: ClickHouse, fromMs: number, toMs: number): Promise<string> {
  await ch.command(sql`SYSTEM FLUSH LOGS`);
  const rows = await ch.query(
    sql`SELECT query_duration_ms AS ms, substring(query, 1, 400) AS statement FROM system.query_log
        WHERE type = 2 AND event_time >= toDateTime(${Math.floor(fromMs / 1000)}) AND event_time <= toDateTime(${Math.ceil(toMs / 1000)})
          AND query NOT LIKE 'SYSTEM FLUSH%'
        ORDER BY ms DESC LIMIT 3`,
    statementRow,
  );
  return rows.map((r) => `${r.ms} ms ${r.statement.replace(/\s+/g, ' ').trim().slice(0, 60)}`).join(' | ');
}
