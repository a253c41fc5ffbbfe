/**
 * One ClickHouse URL in front of two ClickHouse versions: every statement the stack sends
 * runs on both, in the same order, and their answers are compared (engine-answers.ts). The
 * stack gets the first engine's answer, so it behaves as it would on that engine alone,
 * while the second engine holds the same data and is asked the same questions.
 *
 * Test support: statements run one at a time, so that both engines see one order.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerDifference, uncomparedBecause, type EngineAnswer } from './engine-answers.ts';

export interface Divergence {
  statement: string;
  difference: string;
}

/** How long one statement took: waiting for the statements before it, then on each engine. */
export interface StatementTime {
  statement: string;
  waitedMs: number;
  firstMs: number;
  secondMs: number;
}

export interface EngineTee {
  url: string;
  /** Statements whose answers were compared, and those that ran on both without comparing. */
  counts(): { compared: number; uncompared: number };
  divergences(): Divergence[];
  /** Every statement sent, in order (the SQL, without an INSERT's rows). */
  statements(): string[];
  /** Every statement's times, in the order sent. */
  times(): StatementTime[];
  close(): Promise<void>;
}

/** A statement whose answer is RowBinary (the run's loads, pipeline/materialize/load/). */
const BINARY_ANSWER = /FORMAT RowBinary\s*$/;

/** Request headers passed on; compression is left out so that answers compare as text. */
const FORWARDED_HEADERS = ['authorization', 'content-type', 'content-encoding', 'x-clickhouse-user', 'x-clickhouse-key'];
const ANSWER_HEADERS = ['content-type', 'x-clickhouse-exception-code', 'x-clickhouse-format', 'x-clickhouse-summary', 'x-clickhouse-query-id', 'x-clickhouse-timezone'];

/** The slowest of some statements, one line each, for a failure message. */
export function slowestStatements(times: StatementTime[], count = 5): string {
  const total = (t: StatementTime) => t.waitedMs + t.firstMs + t.secondMs;
  return [...times]
    .sort((a, b) => total(b) - total(a))
    .slice(0, count)
    .map((t) => `waited ${t.waitedMs.toFixed(0)} ms, first ${t.firstMs.toFixed(0)} ms, second ${t.secondMs.toFixed(0)} ms: ${t.statement.replace(/\s+/g, ' ').slice(0, 200)}`)
    .join('\n');
}

export async function startEngineTee(firstUrl: string, secondUrl: string): Promise<EngineTee> {
  const divergences: Divergence[] = [];
  const sent: string[] = [];
  const times: StatementTime[] = [];
  let compared = 0;
  let uncompared = 0;
  let queue: Promise<unknown> = Promise.resolve();

  /** The engine's answer: its bytes as they came (RowBinary is not text), and as text for comparing. */
  async function ask(base: string, request: IncomingMessage, body: Buffer): Promise<EngineAnswer & { headers: Headers; bytes: Buffer }> {
    const headers = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const response = await fetch(new URL(request.url ?? '/', base), {
      method: request.method ?? 'GET',
      headers,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, body: bytes.toString('utf8'), headers: response.headers, bytes };
  }

  /**
   * A SELECT answered in RowBinary is compared as the same SELECT answered in TabSeparated by
   * both engines: bytes would differ in a float's last bits where the rows agree within the
   * comparison's tolerance, and a text diff of binary says nothing.
   */
  async function textAnswers(request: IncomingMessage, statement: string): Promise<[EngineAnswer, EngineAnswer] | undefined> {
    if (!BINARY_ANSWER.test(statement)) return undefined;
    const text = Buffer.from(statement.replace(BINARY_ANSWER, 'FORMAT TabSeparated'));
    return [await ask(firstUrl, request, text), await ask(secondUrl, request, text)];
  }

  async function both(request: IncomingMessage, body: Buffer, arrived: number) {
    const url = new URL(request.url ?? '/', 'http://tee');
    const query = url.searchParams.get('query');
    // An INSERT's statement is in the URL and its rows in the body; a query's statement is the body.
    const statement = query ?? body.toString('utf8');
    const started = performance.now();
    const first = await ask(firstUrl, request, body);
    const between = performance.now();
    const second = await ask(secondUrl, request, body);
    if (url.pathname === '/ping' || statement === '') return first;
    sent.push(statement);
    times.push({ statement, waitedMs: started - arrived, firstMs: between - started, secondMs: performance.now() - between });
    const reason = uncomparedBecause(statement);
    if (reason && first.status === 200 && second.status === 200) {
      uncompared++;
      return first;
    }
    compared++;
    const [firstText, secondText] = (first.status === 200 && second.status === 200 ? await textAnswers(request, statement) : undefined) ?? [first, second];
    const difference = answerDifference(statement, firstText, secondText);
    if (difference) divergences.push({ statement, difference });
    return first;
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    const arrived = performance.now();
    request.on('end', () => {
      const answer = queue.then(() => both(request, Buffer.concat(chunks), arrived));
      queue = answer.catch(() => undefined);
      answer.then(
        (first) => {
          const headers: Record<string, string> = {};
          for (const name of ANSWER_HEADERS) {
            const value = first.headers.get(name);
            if (value !== null) headers[name] = value;
          }
          response.writeHead(first.status, headers).end(first.bytes);
        },
        (error: unknown) => response.writeHead(502).end(`Code: 1002. DB::Exception: engine tee: ${String(error)}`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ compared, uncompared }),
    divergences: () => [...divergences],
    statements: () => [...sent],
    times: () => [...times],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
