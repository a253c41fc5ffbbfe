/**
 * Whether two ClickHouse versions answered one statement the same: the same success or
 * failure, and the same rows. Rows are compared cell by cell, floats within a relative
 * 1e-9 (sums in another order differ in the last bits); the order of rows counts only when
 * the statement orders its result (a top-level ORDER BY). One spelling differs and is the
 * same value: the zero DateTime.
 */

export interface EngineAnswer {
  status: number;
  body: string;
}

/** Why a statement's answers are not compared (it still runs on both engines). */
export function uncomparedBecause(statement: string): string | undefined {
  if (/\bsystem\.\w+/i.test(statement)) return 'reads system tables, which differ between versions';
  if (/\b(now|version|today|uptime)\(\)/i.test(statement)) return 'depends on the clock or the version';
  return undefined;
}

/** A difference between the answers, in words, or undefined when they are the same. */
export function answerDifference(statement: string, first: EngineAnswer, second: EngineAnswer): string | undefined {
  const firstFailed = first.status !== 200;
  const secondFailed = second.status !== 200;
  if (firstFailed || secondFailed) {
    if (firstFailed && secondFailed) return undefined;
    const [failed, answer] = firstFailed ? ['first', first.body] : ['second', second.body];
    return `only the ${failed} engine failed: ${answer.trim().slice(0, 500)}`;
  }
  if (first.body === second.body) return undefined;
  const a = rowsOf(first.body);
  const b = rowsOf(second.body);
  if (a.length !== b.length) return `${a.length} rows against ${b.length}`;
  const ordered = ordersItsResult(statement);
  const [left, right] = ordered ? [a, b] : [sortedRows(a), sortedRows(b)];
  for (let i = 0; i < left.length; i++) {
    const difference = rowDifference(left[i]!, right[i]!);
    if (difference) return `row ${i + 1}${ordered ? '' : ' (rows sorted)'}: ${difference}\n  ${JSON.stringify(left[i])}\n  ${JSON.stringify(right[i])}`;
  }
  return undefined;
}

type Cell = string | number | boolean | null | Cell[] | { [key: string]: Cell };
type Row = Cell[];

/** JSONEachRow lines as [key, value, key, value, ...]; other formats' lines as tab-separated cells. */
export function rowsOf(body: string): Row[] {
  const lines = body.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    if (line.startsWith('{')) {
      try {
        return Object.entries(JSON.parse(line) as Record<string, Cell>).flat();
      } catch {
        // A TabSeparated cell may start with "{" too.
      }
    }
    return line.split('\t');
  });
}

const FLOAT_TEXT = /^-?(\d+\.\d*|\d*\.\d+|\d+)(e[-+]?\d+)?$/i;

/** The zero DateTime, as 18.16 writes it and as current versions do: the same value. */
const ZERO_TIMES = new Set(['0000-00-00 00:00:00', '1970-01-01 00:00:00']);

function cellDifference(a: Cell, b: Cell): boolean {
  if (a === b) return false;
  if (typeof a === 'string' && typeof b === 'string' && ZERO_TIMES.has(a) && ZERO_TIMES.has(b)) return false;
  if (typeof a === 'number' && typeof b === 'number') return !closeEnough(a, b);
  if (typeof a === 'string' && typeof b === 'string') {
    if (FLOAT_TEXT.test(a) && FLOAT_TEXT.test(b) && (a.includes('.') || b.includes('.') || /e/i.test(a + b))) {
      return !closeEnough(Number(a), Number(b));
    }
    if (a.startsWith('[') && b.startsWith('[')) return arrayTextDifference(a, b);
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length !== b.length || a.some((x, i) => cellDifference(x, b[i]!));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    return cellDifference(Object.entries(a).flat(), Object.entries(b).flat());
  }
  return true;
}

/** TabSeparated arrays of numbers, e.g. [0.5,0.25]: element by element. */
function arrayTextDifference(a: string, b: string): boolean {
  const parts = (text: string) => text.slice(1, -1).split(',');
  const x = parts(a);
  const y = parts(b);
  return x.length !== y.length || x.some((cell, i) => cellDifference(cell, y[i]!));
}

function closeEnough(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-12 + 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

function rowDifference(a: Row, b: Row): string | undefined {
  if (a.length !== b.length) return `${a.length} cells against ${b.length}`;
  const at = a.findIndex((cell, i) => cellDifference(cell, b[i]!));
  return at === -1 ? undefined : `cell ${at + 1}: ${JSON.stringify(a[at])} against ${JSON.stringify(b[at])}`;
}

/** Rows in a canonical order, floats rounded so that two engines' last bits sort alike. */
function sortedRows(rows: Row[]): Row[] {
  const key = (row: Row) => JSON.stringify(row, (_, v: unknown) => roundedFloat(v));
  return rows.map((row) => [key(row), row] as const).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, row]) => row);
}

function roundedFloat(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isInteger(value)) return Number(value.toPrecision(6));
  if (typeof value === 'string' && FLOAT_TEXT.test(value) && value.includes('.')) return Number(value).toPrecision(6);
  return value;
}

/** True when the statement's own SELECT (not a subquery) has an ORDER BY. */
export function ordersItsResult(statement: string): boolean {
  let depth = 0;
  let outside = '';
  for (const c of statement.replace(/'(?:[^'\\]|\\.)*'/g, "''")) {
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) outside += c;
  }
  return /\bORDER\s+BY\b/i.test(outside);
}
