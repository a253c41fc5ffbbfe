import { describe, it, expect } from 'vitest';
import { identifier, joinSql, literal, quoteString, sql, SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { splitStatements } from '../../shared/clickhouse/sql-statements.ts';

/**
 * Reference reader for a ClickHouse string literal, written independently of the code
 * under test: the text must be one quoted literal from its first to its last character,
 * and the backslash escapes \\ \' \n \r \t \0 \b \f are the only escapes we emit.
 */
const UNESCAPE: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  n: '\n',
  r: '\r',
  t: '\t',
  '0': '\0',
  b: '\b',
  f: '\f',
};

function readStringLiteral(text: string): string {
  if (text[0] !== "'") throw new Error(`does not start with a quote: ${JSON.stringify(text)}`);
  let value = '';
  let i = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      const escaped = text[i + 1];
      if (escaped === undefined || !(escaped in UNESCAPE)) {
        throw new Error(`unknown escape \\${escaped} at ${i} in ${JSON.stringify(text)}`);
      }
      value += UNESCAPE[escaped];
      i += 2;
    } else if (c === "'") {
      if (i !== text.length - 1) throw new Error(`literal closes early at ${i} in ${JSON.stringify(text)}`);
      return value;
    } else {
      value += c;
      i++;
    }
  }
  throw new Error(`unterminated literal ${JSON.stringify(text)}`);
}

/** Deterministic PRNG (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('quoteString', () => {
  it('wraps plain text in single quotes unchanged', () => {
    expect(quoteString('hello world')).toBe("'hello world'");
  });

  it('writes the empty string as two quotes', () => {
    expect(quoteString('')).toBe("''");
  });

  it('escapes a single quote with a backslash', () => {
    expect(quoteString("it's")).toBe("'it\\'s'");
  });

  it('doubles a backslash', () => {
    expect(quoteString('a\\b')).toBe("'a\\\\b'");
  });

  it('writes newline, carriage return and tab as \\n, \\r and \\t', () => {
    expect(quoteString('a\nb\rc\td')).toBe("'a\\nb\\rc\\td'");
  });

  it('writes NUL as \\0, backspace as \\b and form feed as \\f', () => {
    expect(quoteString('a\u0000b\u0008c\u000cd')).toBe("'a\\0b\\bc\\fd'");
  });

  it('passes other control characters and unicode through as they are', () => {
    expect(quoteString('\u0001\u007f é 漢 😀')).toBe("'\u0001\u007f é 漢 😀'");
  });

  it('keeps a double quote and a backtick as they are', () => {
    expect(quoteString('say "hi" `x`')).toBe("'say \"hi\" `x`'");
  });
});

describe('injection attempts stay inside one string literal', () => {
  it("quotes ' OR 1=1 -- as a single literal", () => {
    const text = literal("' OR 1=1 --");
    expect(text).toBe("'\\' OR 1=1 --'");
    expect(readStringLiteral(text)).toBe("' OR 1=1 --");
  });

  it("quotes \\' ; DROP TABLE x (a backslash before the quote) as a single literal", () => {
    const text = literal("\\' ; DROP TABLE x");
    expect(text).toBe("'\\\\\\' ; DROP TABLE x'");
    expect(readStringLiteral(text)).toBe("\\' ; DROP TABLE x");
  });

  it('keeps a statement with an interpolated "; DROP TABLE" as one statement', () => {
    const query = sql`SELECT * FROM profiles WHERE name = ${"x'; DROP TABLE profiles; --"}`;
    expect(splitStatements(query.text)).toEqual([query.text]);
  });

  it('round-trips a string ending in a backslash', () => {
    expect(literal('C:\\')).toBe("'C:\\\\'");
    expect(readStringLiteral(literal('C:\\'))).toBe('C:\\');
  });
});

describe('literal: round trip through a reference unescaper', () => {
  const next = random(20240501);
  const pools = [
    () => String.fromCharCode(Math.floor(next() * 256)),
    () => ["'", '\\', '\n', '\r', '\t', '\0', '\b', '\f', '"', '`', ';', '-', '/', '*'][Math.floor(next() * 14)]!,
    () => ['é', 'ß', '漢', '字', '😀', '\u2028', '\u00a0', '\ufeff', 'Ω'][Math.floor(next() * 9)]!,
    () => String.fromCharCode(32 + Math.floor(next() * 95)),
  ];
  const allBytes = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
  const samples = [allBytes, [...allBytes].reverse().join(''), "' OR 1=1 --", "\\' ; DROP TABLE x", "''", '\\\\', ''];
  while (samples.length < 200) {
    const length = Math.floor(next() * 40);
    let s = '';
    for (let i = 0; i < length; i++) s += pools[Math.floor(next() * pools.length)]!();
    samples.push(s);
  }

  it('covers every byte value 0-255 among the samples', () => {
    const seen = new Set(samples.join(''));
    for (let i = 0; i < 256; i++) expect(seen.has(String.fromCharCode(i))).toBe(true);
    expect(samples).toHaveLength(200);
  });

  it('reads back exactly the string it was given, for 200 strings', () => {
    for (const s of samples) {
      const text = literal(s);
      expect(readStringLiteral(text), JSON.stringify(s)).toBe(s);
    }
  });

  it('never leaves a raw newline, NUL or unescaped quote inside the literal', () => {
    for (const s of samples) {
      const inner = literal(s).slice(1, -1);
      expect(inner).not.toMatch(/[\n\r\0]/);
      expect(inner.replace(/\\./g, '')).not.toContain("'");
    }
  });
});

describe('literal: other values', () => {
  it('writes finite numbers as they are', () => {
    expect(literal(42)).toBe('42');
    expect(literal(0)).toBe('0');
    expect(literal(1.5)).toBe('1.5');
  });

  it('wraps a negative number in parentheses so a preceding minus cannot make a -- comment', () => {
    expect(literal(-7)).toBe('(-7)');
    expect(sql`SELECT 1-${-1}, x`.text).toBe('SELECT 1-(-1), x');
    expect(sql`SELECT 1-${-2n}, x`.text).toBe('SELECT 1-(-2), x');
  });

  it.each([NaN, Infinity, -Infinity])('throws on %s', (value) => {
    expect(() => literal(value)).toThrow(TypeError);
  });

  it('writes a bigint exactly, beyond 2^53', () => {
    expect(literal(18446744073709551616n)).toBe('18446744073709551616');
    expect(literal(9007199254740993n)).toBe('9007199254740993');
  });

  it('writes booleans as 1 and 0', () => {
    expect(literal(true)).toBe('1');
    expect(literal(false)).toBe('0');
  });

  it('writes null as NULL', () => {
    expect(literal(null)).toBe('NULL');
  });

  it('writes a Date as toDateTime(unix seconds), dropping milliseconds', () => {
    expect(literal(new Date('2024-05-01T12:00:00Z'))).toBe('toDateTime(1714564800)');
    expect(literal(new Date('2024-05-01T12:00:00.999Z'))).toBe('toDateTime(1714564800)');
  });

  it('throws on an invalid Date', () => {
    expect(() => literal(new Date('not a date'))).toThrow(/invalid Date/);
  });

  it('writes arrays as array literals, nested and empty ones included', () => {
    expect(literal([1, 'a', null])).toBe("[1, 'a', NULL]");
    expect(literal([[1, 2], [], ["o'k"]])).toBe("[[1, 2], [], ['o\\'k']]");
    expect(literal([])).toBe('[]');
  });

  it('throws on undefined, objects and functions', () => {
    expect(() => literal(undefined as never)).toThrow(/type undefined/);
    expect(() => literal({ a: 1 } as never)).toThrow(/type object/);
    expect(() => literal((() => 1) as never)).toThrow(/type function/);
  });

  it('throws on an array holding a value it cannot write', () => {
    expect(() => literal([1, NaN])).toThrow(TypeError);
  });
});

describe('identifier', () => {
  it.each(['profiles', '_tmp', 'table_2', 'A'])('accepts the plain name %s and backtick-quotes it', (name) => {
    expect(identifier(name).text).toBe(`\`${name}\``);
  });

  it.each([
    ['a backtick', 'a`b'],
    ['a dot', 'db.table'],
    ['a space', 'my table'],
    ['the empty string', ''],
    ['a leading digit', '1abc'],
    ['a trailing newline', 'name\n'],
    ['a semicolon', 'x;DROP'],
    ['a hyphen', 'my-table'],
    ['a non-ASCII letter', 'tablé'],
  ])('rejects a name with %s', (_, name) => {
    expect(() => identifier(name)).toThrow(/not a plain SQL identifier/);
  });
});

describe('sql tag', () => {
  it('quotes interpolated values and splices identifiers', () => {
    const query = sql`SELECT * FROM ${identifier('profiles')} WHERE id = ${"o'k"} AND n IN ${[1, 2]}`;
    expect(query).toBeInstanceOf(SqlFragment);
    expect(query.text).toBe("SELECT * FROM `profiles` WHERE id = 'o\\'k' AND n IN [1, 2]");
  });

  it('splices a nested sql fragment as SQL, not as a string', () => {
    const condition = sql`a = ${1}`;
    expect(sql`SELECT 1 WHERE ${condition}`.text).toBe('SELECT 1 WHERE a = 1');
  });

  it('quotes a string that looks like SQL instead of splicing it', () => {
    expect(sql`SELECT ${'1; DROP TABLE x'}`.text).toBe("SELECT '1; DROP TABLE x'");
  });

  it('returns the text unchanged when nothing is interpolated', () => {
    expect(sql`SELECT 1`.text).toBe('SELECT 1');
    expect(String(sql`SELECT 1`)).toBe('SELECT 1');
  });

  it('joinSql joins fragments with the separator', () => {
    expect(joinSql([sql`a = ${1}`, sql`b = ${'x'}`], ' AND ').text).toBe("a = 1 AND b = 'x'");
    expect(joinSql([], ' AND ').text).toBe('');
  });
});
