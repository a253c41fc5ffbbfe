/**
 * The ClickHouse connection used by the API and the pipeline: typed reads (zod on every
 * row), commands, and batch inserts. Nothing connects on import; callers create one
 * client per process and close it on shutdown.
 */
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { identifier, joinSql, sql, type SqlFragment } from './sql-literal.ts';
import { tabSeparated } from './tab-separated.ts';

export interface ClickHouse {
  readonly database: string;
  /** host:port of the server it talks to (CLICKHOUSE_URL's). */
  readonly address: string;
  /** CLICKHOUSE_CLUSTER: the cluster whose Distributed tables this client reads and writes; unset on one server. */
  readonly cluster?: string;
  /** Runs a SELECT; every row is validated by `row`, so a schema drift fails loudly here. */
  query<Row extends z.ZodType>(statement: SqlFragment, row: Row, settings?: QuerySettings): Promise<z.output<Row>[]>;
  /** A SELECT's rows one at a time, as ClickHouse sends them (for results too big to hold). */
  stream<Row extends z.ZodType>(statement: SqlFragment, row: Row, settings?: QuerySettings): AsyncGenerator<z.output<Row>>;
  /**
   * A SELECT's rows as raw TabSeparated lines (cells: tabSeparatedCells), in batches as
   * ClickHouse sends them, with no per-row parsing: for bulk copies whose SQL formats each
   * line, where checking every row would cost more than the copy.
   */
  lines(statement: SqlFragment, settings?: QuerySettings): AsyncGenerator<string[]>;
  /**
   * A SELECT's rows in ClickHouse's RowBinary format, as the chunks arrive: for reads of
   * millions of rows that a reader decodes itself (pipeline/materialize/load/row-binary.ts),
   * with no JSON or text per row. The statement must not name a FORMAT.
   */
  rowBinary(statement: SqlFragment, settings?: QuerySettings): AsyncGenerator<Buffer>;
  /**
   * One INSERT whose body is already in ClickHouse's `format` (RowBinary or Native), streamed
   * as `chunks` yields it: a large write of rows encoded where they are made.
   */
  insertBinary(table: string, columns: readonly [string, ...string[]], format: 'RowBinary' | 'Native', chunks: AsyncIterable<Buffer> | Iterable<Buffer>, settings?: QuerySettings): Promise<void>;
  /** DDL and other statements without a result. */
  command(statement: SqlFragment, settings?: QuerySettings): Promise<void>;
  /**
   * One INSERT of all rows, which must share the first row's columns; ClickHouse writes a
   * block of up to ~1 M rows atomically. Rows may come lazily (a generator): they are
   * encoded and streamed as they come, and the INSERT fails whole if the iterator throws.
   * Returns the number of rows inserted.
   */
  insert(table: string, rows: Iterable<Record<string, unknown>>): Promise<number>;
  /** One INSERT of a body already in TabSeparated (one line per row, in `columns` order), sent as one write. */
  insertTabSeparated(table: string, columns: readonly [string, ...string[]], body: Buffer): Promise<void>;
  /** The table's DateTime columns, which TabSeparated must write as 10-digit unix seconds (see tab-separated.ts). */
  dateTimeColumns(table: string): Promise<ReadonlySet<string>>;
  ping(): Promise<boolean>;
  /**
   * A client of each node in CLICKHOUSE_NODE_URLS (none when unset), with the same user,
   * password and database: for what must run on particular nodes of a cluster rather than
   * through its Distributed tables. Made on first use, closed with the client that made them;
   * each of them has the same `nodes`.
   */
  readonly nodes: readonly ClickHouse[];
  close(): Promise<void>;
}

/** Per-statement ClickHouse settings (max_memory_usage, max_execution_time, ...). */
export type QuerySettings = ClickHouseSettings;

export interface ClickHouseOptions {
  /** Override the configured database (tests use one database per file). */
  database?: string;
  /** Connect without selecting a database (to create it). */
  noDatabase?: boolean;
  requestTimeoutMs?: number;
  /**
   * Each query and command fails after this long, counting the wait for a free connection: the
   * client's request_timeout starts only once a request has a socket, so while ClickHouse
   * stalls, requests queued behind the stuck ones would wait for as long as it does.
   */
  deadlineMs?: number;
  /**
   * For a client of one of the cluster's nodes (`nodes`): the node clients it shares with the
   * client that made them, which closes them. A bucket computed on a node then still sends
   * its ALTERs to every node (cluster-schema.ts, alterOnEveryShard), not ON CLUSTER.
   */
  siblings?: () => readonly ClickHouse[];
}

export function createClickHouse(config: Config, options: ClickHouseOptions = {}): ClickHouse {
  if (!config.CLICKHOUSE_URL) throw new Error('CLICKHOUSE_URL is not set and no local stack was started');
  const database = options.database ?? config.CLICKHOUSE_DATABASE;
  const client: ClickHouseClient = createClient({
    url: config.CLICKHOUSE_URL,
    username: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    ...(options.noDatabase ? {} : { database }),
    request_timeout: options.requestTimeoutMs ?? 300_000,
    clickhouse_settings: {
      // Progress headers keep long INSERT ... SELECTs alive through idle-timeout proxies.
      send_progress_in_http_headers: 1,
      http_headers_progress_interval_ms: '10000',
      // 64-bit integers as JSON strings, so that values past 2^53 (packed keys) reach zod
      // exactly. The default was 1 on ClickHouse 18.16 and is 0 on current versions.
      output_format_json_quote_64bit_integers: 1,
      // On a cluster an INSERT into a Distributed table returns once every shard has its rows
      // (not once they are queued on this node), so a finished ingest job is a durable one.
      // 18.16 reads its own shard of a Distributed table without the version column that
      // FINAL needs ("Cannot find column updated_at in source stream") unless it asks that
      // shard over the network like the others (measured on the local cluster).
      ...(config.CLICKHOUSE_CLUSTER ? { insert_distributed_sync: 1, prefer_localhost_replica: 0 } : {}),
    },
    // Failures reach the caller as exceptions; the client's own console logging would duplicate them.
    log: { level: ClickHouseLogLevel.OFF },
  });

  const dateTimeColumnsByTable = new Map<string, Promise<Set<string>>>();
  /** Column types never change under a running process (migrations add tables, not types). */
  const dateTimeColumns = (table: string) => {
    let columns = dateTimeColumnsByTable.get(table);
    if (!columns) {
      columns = readDateTimeColumns(client, database, table);
      columns.catch(() => dateTimeColumnsByTable.delete(table));
      dateTimeColumnsByTable.set(table, columns);
    }
    return columns;
  };

  const deadline = options.deadlineMs;
  /** The statement under the deadline, if any; past it, an error that says it timed out. */
  async function withinDeadline<T>(run: (params: { abort_signal?: AbortSignal }) => Promise<T>): Promise<T> {
    if (deadline === undefined) return run({});
    const signal = AbortSignal.timeout(deadline);
    try {
      return await run({ abort_signal: signal });
    } catch (error) {
      if (signal.aborted) throw new Error(`ClickHouse timed out: no answer within ${deadline} ms`, { cause: error });
      throw error;
    }
  }

  // Made on first use, closed with this client; a node client shares its maker's.
  let nodes: ClickHouse[] | undefined;
  const nodesOf: () => readonly ClickHouse[] =
    options.siblings ?? (() => (nodes ??= config.CLICKHOUSE_NODE_URLS.map((url) => createClickHouse({ ...config, CLICKHOUSE_URL: url }, { ...options, siblings: nodesOf }))));
  return {
    database,
    address: new URL(config.CLICKHOUSE_URL).host,
    ...(config.CLICKHOUSE_CLUSTER ? { cluster: config.CLICKHOUSE_CLUSTER } : {}),
    get nodes() {
      return nodesOf();
    },
    async query(statement, row, settings) {
      const rows = await withinDeadline(async (params) => {
        const result = await client.query({ query: statement.text, format: 'JSONEachRow', ...params, ...(settings ? { clickhouse_settings: settings } : {}) });
        return result.json<unknown>();
      });
      return rows.map((r, i) => checkedRow(row, r, i));
    },
    async *stream(statement, row, settings) {
      const result = await client.query({ query: statement.text, format: 'JSONEachRow', ...(settings ? { clickhouse_settings: settings } : {}) });
      let i = 0;
      for await (const rows of result.stream()) {
        for (const r of rows) yield checkedRow(row, r.json(), i++);
      }
    },
    async *lines(statement, settings) {
      const result = await client.query({ query: statement.text, format: 'TabSeparated', ...(settings ? { clickhouse_settings: settings } : {}) });
      for await (const rows of result.stream()) yield rows.map((r) => r.text);
    },
    async *rowBinary(statement, settings) {
      const result = await client.exec({ query: `${statement.text}\nFORMAT RowBinary`, ...(settings ? { clickhouse_settings: settings } : {}) });
      for await (const chunk of result.stream) yield chunk as Buffer;
    },
    async insertBinary(table, columns, format, chunks, settings) {
      const statement = sql`INSERT INTO ${identifier(table)} (${joinSql(columns.map((c) => identifier(c)), ', ')}) FORMAT`;
      const result = await client.exec({
        query: `${statement.text} ${format}`,
        values: Readable.from(chunks, { objectMode: false }),
        ...(settings ? { clickhouse_settings: settings } : {}),
      });
      // The answer is empty; reading it to the end frees the connection.
      for await (const _ of result.stream) void _;
    },
    async command(statement, settings) {
      await withinDeadline((params) => client.command({ query: statement.text, ...params, ...(settings ? { clickhouse_settings: settings } : {}) }));
    },
    async insert(table, rows) {
      const iterator = rows[Symbol.iterator]();
      const first = iterator.next();
      if (first.done) return 0;
      const columns = Object.keys(first.value) as [string, ...string[]];
      const body = encodedBatches(first.value, iterator, columns, await dateTimeColumns(table));
      await client.insert({ table, values: Readable.from(body.chunks, { objectMode: false }), format: 'TabSeparated', columns });
      return body.count();
    },
    async insertTabSeparated(table, columns, body) {
      if (body.length === 0) return;
      await client.insert({ table, values: Readable.from([body], { objectMode: false }), format: 'TabSeparated', columns: [...columns] });
    },
    dateTimeColumns,
    ping: async () => (await client.ping()).success,
    async close() {
      await Promise.all([client.close(), ...(nodes ?? []).map((node) => node.close())]);
    },
  };
}

/** Every row read is validated, so that a schema drift fails loudly at the read. */
function checkedRow<Row extends z.ZodType>(row: Row, value: unknown, index: number): z.output<Row> {
  const parsed = row.safeParse(value);
  if (!parsed.success) throw new Error(`ClickHouse row ${index} does not match the expected shape: ${parsed.error.message}`);
  return parsed.data;
}

const ROWS_PER_BATCH = 1_000;

/** The rows as TabSeparated buffers of ROWS_PER_BATCH rows each, encoded on demand. */
function encodedBatches(
  first: Record<string, unknown>,
  rest: Iterator<Record<string, unknown>>,
  columns: readonly string[],
  dateTimeColumns: ReadonlySet<string>,
) {
  let count = 0;
  function* chunks(): Generator<Buffer> {
    let batch = [first];
    for (let next = rest.next(); !next.done; next = rest.next()) {
      batch.push(next.value);
      if (batch.length === ROWS_PER_BATCH) {
        count += batch.length;
        yield Buffer.from(tabSeparated(batch, columns, dateTimeColumns));
        batch = [];
      }
    }
    count += batch.length;
    if (batch.length > 0) yield Buffer.from(tabSeparated(batch, columns, dateTimeColumns));
  }
  return { chunks: chunks(), count: () => count };
}

async function readDateTimeColumns(client: ClickHouseClient, database: string, table: string): Promise<Set<string>> {
  const result = await client.query({
    query: sql`SELECT name FROM system.columns
               WHERE database = ${database} AND table = ${table} AND type LIKE '%DateTime%'`.text,
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ name: string }>()).map((r) => r.name));
}
