/**
 * Current ClickHouse (the engine inside the npm package `chdb`) behind the part of
 * ClickHouse's HTTP interface that @clickhouse/client uses, so that the real pipeline, API
 * and CLI can run unchanged against it: `CLICKHOUSE_URL=http://127.0.0.1:<port>`.
 *
 * Test support, not a production path: one process, one data directory, statements run
 * one at a time, no users or passwords. Run it as a process of its own (libchdb binds one
 * data directory per process, and a crash of the engine must not take a test runner down):
 *
 *   node --import tsx test/support/chdb-http.ts <data-dir> [port]
 *
 * It prints `listening <port> <version>` on stdout once it answers.
 *
 * What it translates, per request: the `database` parameter becomes a `USE`; every other
 * URL parameter that is a ClickHouse setting becomes a `SET` for that statement only (the
 * engine keeps SETs for the session, so the previous statement's are put back to DEFAULT
 * first); the `query` parameter and the body are one statement, as ClickHouse's HTTP
 * server joins them (an INSERT's rows follow its `FORMAT` line).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { identifier, quoteString } from '../../shared/clickhouse/sql-literal.ts';
import { nativeBlocksAsTabSeparated } from './native-block-text.ts';

interface ChdbResult {
  bytes(): Uint8Array;
  readonly rowsRead: number;
  readonly bytesRead: number;
}
interface ChdbSession {
  queryAsync(sql: string, options?: { format?: string }): Promise<ChdbResult>;
  close(): void;
}
interface ChdbModule {
  Session: new (path: string) => ChdbSession;
}

/** URL parameters that are part of the HTTP protocol, not engine settings. */
const PROTOCOL_PARAMETERS = new Set(['query', 'database', 'default_format', 'query_id', 'session_id', 'user', 'password']);

/** Settings that only ClickHouse's HTTP server knows (the engine refuses them as unknown). */
const HTTP_ONLY_SETTINGS = new Set([
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_send_progress_interval_ms',
  'http_response_buffer_size',
  'enable_http_compression',
  'http_zlib_compression_level',
  'cancel_http_readonly_queries_on_client_close',
]);

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ChdbHttpStatement {
  /** The statement as ClickHouse's HTTP server would run it: `query` parameter, newline, body. */
  sql: string;
  database: string | undefined;
  settings: Map<string, string>;
  format: string;
}

/** An INSERT whose rows come in ClickHouse's binary Native format. */
const NATIVE_INSERT = /^(INSERT INTO [\s\S]*?)\s*\(([^)]*)\)\s*FORMAT Native\s*$/;

/** Reads what one HTTP request asks ClickHouse to run. */
export function statementOf(url: URL, raw: Buffer): ChdbHttpStatement {
  const params = url.searchParams;
  let query = params.get('query');
  let body = raw.toString('utf8');
  // Binary rows cannot go inside the SQL text the engine takes: the same rows as TabSeparated.
  const native = query === null ? null : NATIVE_INSERT.exec(query);
  if (native) {
    const { text } = nativeBlocksAsTabSeparated(raw);
    query = `${native[1]} (${native[2]}) FORMAT TabSeparated`;
    body = text;
  }
  const settings = new Map<string, string>();
  for (const [name, value] of params) {
    if (PROTOCOL_PARAMETERS.has(name) || HTTP_ONLY_SETTINGS.has(name) || name.startsWith('param_')) continue;
    if (!SETTING_NAME.test(name)) throw new Error(`not a setting name: ${JSON.stringify(name)}`);
    settings.set(name, value);
  }
  return {
    sql: query === null ? body : body === '' ? query : `${query}\n${body}`,
    database: params.get('database') ?? undefined,
    settings,
    format: params.get('default_format') ?? 'TabSeparated',
  };
}

/** A setting's value as SET takes it: numbers bare, anything else as a string literal. */
function settingLiteral(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : quoteString(value);
}

/**
 * Settings of this front, under any a statement sets: mutations are done when their ALTER
 * returns, so that a caller that waits for them on another engine (system.mutations) finds
 * this one in the same state.
 */
const FRONT_SETTINGS = new Map([['mutations_sync', '1']]);

/** One statement at a time over one chdb session, each with its own database and settings. */
export function chdbRunner(session: ChdbSession) {
  let settingsInForce = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  async function runNow(statement: ChdbHttpStatement): Promise<ChdbResult> {
    const settings = new Map([...FRONT_SETTINGS, ...statement.settings]);
    const prefix: string[] = [];
    for (const name of settingsInForce) if (!settings.has(name)) prefix.push(`SET ${name} = DEFAULT`);
    for (const [name, value] of settings) prefix.push(`SET ${name} = ${settingLiteral(value)}`);
    prefix.push(`USE ${identifier(statement.database ?? 'default').text}`);
    settingsInForce = new Set(settings.keys());
    return session.queryAsync(`${prefix.join('; ')}; ${statement.sql}`, { format: statement.format });
  }

  return {
    run(statement: ChdbHttpStatement): Promise<ChdbResult> {
      const result = queue.then(() => runNow(statement));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/** ClickHouse's own error text, `Code: N. DB::Exception: ...`, or the message as it came. */
function exceptionCode(message: string): string {
  return /Code: (\d+)\./.exec(message)?.[1] ?? '1001';
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export function chdbHttpHandler(runner: ReturnType<typeof chdbRunner>, version: string) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping' || (url.pathname === '/' && request.method === 'GET' && !url.searchParams.has('query'))) {
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    const headers = {
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Server-Display-Name': 'chdb',
      'X-ClickHouse-Timezone': 'UTC',
    };
    try {
      const statement = statementOf(url, await bodyOf(request));
      const result = await runner.run(statement);
      const summary = { read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead), written_rows: '0', written_bytes: '0' };
      response
        .writeHead(200, { ...headers, 'X-ClickHouse-Format': statement.format, 'X-ClickHouse-Summary': JSON.stringify(summary) })
        .end(Buffer.from(result.bytes()));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const text = message.startsWith('Code:') ? message : `Code: 1001. DB::Exception: ${message}`;
      response
        .writeHead(500, { ...headers, 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': exceptionCode(text) })
        .end(`${text} (version ${version})\n`);
    }
  };
}

async function main(): Promise<void> {
  const [dataDir, portArgument] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: chdb-http.ts <data-dir> [port]');
  const { Session } = createRequire(import.meta.url)('chdb') as ChdbModule;
  const session = new Session(dataDir);
  const version = Buffer.from((await session.queryAsync('SELECT version()', { format: 'TabSeparated' })).bytes()).toString().trim();
  const server = createServer(chdbHttpHandler(chdbRunner(session), version));
  server.keepAliveTimeout = 60_000;
  server.listen(Number(portArgument ?? 0), '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    process.stdout.write(`listening ${address.port} ${version}\n`);
  });
  const stop = () => server.close(() => {
    session.close();
    process.exit(0);
  });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
