/**
 * Splits a migration file into statements: ClickHouse's HTTP interface runs one
 * statement per request. Semicolons inside quotes, backticks and comments don't split.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      if (end === -1) throw new Error('unterminated /* comment in SQL');
      // A comment separates tokens: SELECT/**/1 is SELECT 1, not SELECT1.
      current += ' ';
      i = end + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const end = endOfQuoted(script, i);
      current += script.slice(i, end);
      i = end;
      continue;
    }
    if (c === ';') {
      pushStatement(statements, current);
      current = '';
    } else {
      current += c;
    }
    i++;
  }
  pushStatement(statements, current);
  return statements;
}

/** Index just past the closing quote; a backslash escapes, and so does a doubled quote. */
function endOfQuoted(script: string, start: number): number {
  const quote = script[start]!;
  let i = start + 1;
  while (i < script.length) {
    const c = script[i]!;
    if (c === '\\') {
      i += 2;
    } else if (c === quote && script[i + 1] === quote) {
      i += 2;
    } else if (c === quote) {
      return i + 1;
    } else {
      i++;
    }
  }
  throw new Error(`unterminated ${quote} quote in SQL`);
}

function pushStatement(statements: string[], text: string): void {
  const trimmed = text.trim();
  if (trimmed !== '') statements.push(trimmed);
}
