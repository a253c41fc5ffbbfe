/**
 * The one way values enter SQL. ClickHouse 18.16 has no server-side query parameters,
 * so every value is formatted here as a literal and identifiers are checked, never pasted.
 *
 *   sql`SELECT * FROM profiles WHERE profile_id = ${id} AND updated_at > ${since}`
 *
 * Strings are single-quoted with backslash escapes (ClickHouse's string literal syntax);
 * numbers must be finite; bigints are exact; arrays become array literals. Anything else throws.
 */

export type SqlValue = string | number | bigint | boolean | null | Date | readonly SqlValue[] | SqlFragment;

/** Already-safe SQL text (a checked identifier, or a fragment built by `sql`). */
export class SqlFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
};

export function quoteString(value: string): string {
  return `'${value.replace(/[\\'\n\r\t\0\b\f]/g, (c) => ESCAPES[c]!)}'`;
}

export function literal(value: SqlValue): string {
  if (value instanceof SqlFragment) return value.text;
  if (value === null) return 'NULL';
  if (typeof value === 'string') return quoteString(value);
  // Negative numbers are parenthesised: `a-${-1}` must not become the comment `a--1`.
  if (typeof value === 'bigint') return value < 0n ? `(${value})` : value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot put ${value} into SQL`);
    return value < 0 ? `(${value})` : String(value);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('cannot put an invalid Date into SQL');
    return `toDateTime(${Math.floor(value.getTime() / 1000)})`;
  }
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  throw new TypeError(`cannot put a value of type ${typeof value} into SQL`);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A database, table or column name; only plain identifiers pass, quoted with backticks. */
export function identifier(name: string): SqlFragment {
  if (!IDENTIFIER.test(name)) throw new TypeError(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  return new SqlFragment(`\`${name}\``);
}

/** Tagged template: interpolated values become literals; fragments are spliced as they are. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): SqlFragment {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += literal(value) + strings[i + 1]!;
  });
  return new SqlFragment(text);
}

/** Joins fragments (e.g. optional WHERE conditions). */
export function joinSql(parts: readonly SqlFragment[], separator: string): SqlFragment {
  return new SqlFragment(parts.map((p) => p.text).join(separator));
}

/**
 * A parenthesised list for `x IN ${inList(values)}`. (An array literal is a single value
 * to ClickHouse, so `IN (${array})` would compare against the array itself.)
 */
export function inList(values: readonly SqlValue[]): SqlFragment {
  if (values.length === 0) throw new TypeError('IN needs at least one value');
  return new SqlFragment(`(${values.map(literal).join(', ')})`);
}
