/**
 * Rows in ClickHouse's TabSeparated input format, the cheapest format for both sides to
 * handle: building it costs a fraction of JSON.stringify, and the server parses it faster
 * than JSONEachRow (measured on 18.16: 24 ms against 35 ms per 10,000 transactions).
 */
import { quoteString } from './sql-literal.ts';

export type CellValue = string | number | boolean | null | undefined | readonly (string | number)[];

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const NEEDS_ESCAPE = /[\\\t\n\r\0]/;

function escapeText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c]!) : text;
}

export function cell(value: CellValue, isDateTime = false): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} to ClickHouse`);
    // ClickHouse 18.16 reads a DateTime given as unix seconds only with exactly 10 digits.
    return isDateTime ? String(value).padStart(10, '0') : String(value);
  }
  if (Array.isArray(value)) {
    // An array cell is read as an array literal, not unescaped first: its quoted strings
    // carry their own escapes (quoteString leaves no raw tab or newline).
    return `[${value.map((v) => (typeof v === 'string' ? quoteString(v) : String(v))).join(',')}]`;
  }
  throw new TypeError(`cannot write a value of type ${typeof value} to ClickHouse`);
}

/**
 * The body of an INSERT ... FORMAT TabSeparated for these columns, one line per row.
 * `dateTimeColumns` are written as 10-digit unix seconds (see `cell`).
 */
export function tabSeparated(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  dateTimeColumns: ReadonlySet<string> = new Set(),
): string {
  const isDateTime = columns.map((c) => dateTimeColumns.has(c));
  let body = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      line += (i === 0 ? '' : '\t') + cell(row[columns[i]!] as CellValue, isDateTime[i]);
    }
    body += `${line}\n`;
  }
  return body;
}

const TSV_UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f', "'": "'" };

/** The cells of one line of ClickHouse's TabSeparated output, unescaped. */
export function tabSeparatedCells(line: string): string[] {
  const cells = line.split('\t');
  if (!line.includes('\\')) return cells;
  return cells.map((c) => (c.includes('\\') ? c.replace(/\\(.)/g, (_, e: string) => TSV_UNESCAPES[e] ?? e) : c));
}
