import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { splitStatements } from '../../shared/clickhouse/sql-statements.ts';

const MIGRATIONS = fileURLToPath(new URL('../../shared/clickhouse/migrations/', import.meta.url));

describe('splitStatements', () => {
  it('splits on semicolons and trims each statement', () => {
    expect(splitStatements('SELECT 1;\n  SELECT 2 ;SELECT 3')).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3']);
  });

  it('drops empty statements', () => {
    expect(splitStatements(';;  ;\n; SELECT 1;;\n')).toEqual(['SELECT 1']);
    expect(splitStatements('')).toEqual([]);
    expect(splitStatements(' \n\t ')).toEqual([]);
  });

  it("ignores a semicolon inside '...'", () => {
    expect(splitStatements("SELECT 'a;b'; SELECT 2")).toEqual(["SELECT 'a;b'", 'SELECT 2']);
  });

  it('ignores a semicolon inside "..."', () => {
    expect(splitStatements('SELECT "a;b" FROM t; SELECT 2')).toEqual(['SELECT "a;b" FROM t', 'SELECT 2']);
  });

  it('ignores a semicolon inside `...`', () => {
    expect(splitStatements('SELECT `a;b` FROM t; SELECT 2')).toEqual(['SELECT `a;b` FROM t', 'SELECT 2']);
  });

  it('removes a -- comment, including a semicolon and a quote in it', () => {
    expect(splitStatements("-- don't; split\nSELECT 1; SELECT 2 -- trailing; comment")).toEqual([
      'SELECT 1',
      'SELECT 2',
    ]);
  });

  it('removes a /* */ comment, including a semicolon and a quote in it', () => {
    expect(splitStatements("/* it's; one */ SELECT 1; SELECT 2 /* ; */")).toEqual(['SELECT 1', 'SELECT 2']);
  });

  it('keeps the tokens on either side of a /* */ comment apart', () => {
    expect(splitStatements('SELECT/* comment */1')).toEqual(['SELECT 1']);
  });

  it('does not treat -- or /* inside a string as a comment', () => {
    expect(splitStatements("SELECT '--;', '/*;'; SELECT 2")).toEqual(["SELECT '--;', '/*;'", 'SELECT 2']);
  });

  it("keeps a backslash-escaped quote \\' inside the string", () => {
    expect(splitStatements("SELECT 'it\\'s; fine'; SELECT 2")).toEqual(["SELECT 'it\\'s; fine'", 'SELECT 2']);
  });

  it("keeps a doubled quote '' inside the string", () => {
    expect(splitStatements("SELECT 'it''s; fine'; SELECT 2")).toEqual(["SELECT 'it''s; fine'", 'SELECT 2']);
  });

  it('ends a string after an escaped backslash', () => {
    expect(splitStatements("SELECT 'C:\\\\'; SELECT 2")).toEqual(["SELECT 'C:\\\\'", 'SELECT 2']);
  });

  it('keeps an empty string literal', () => {
    expect(splitStatements("SELECT ''; SELECT 2")).toEqual(["SELECT ''", 'SELECT 2']);
  });

  it.each([
    ["SELECT 'abc", "'"],
    ['SELECT "abc', '"'],
    ['SELECT `abc', '`'],
    ["SELECT 'abc\\'", "'"],
    ["SELECT 'it''", "'"],
  ])('throws on the unterminated quote in %s', (script, quote) => {
    expect(() => splitStatements(script)).toThrow(`unterminated ${quote} quote in SQL`);
  });

  it('throws on an unterminated /* comment', () => {
    expect(() => splitStatements('SELECT 1 /* never closed; SELECT 2')).toThrow('unterminated /* comment in SQL');
  });
});

/**
 * Column definitions in a CREATE TABLE statement without `COMMENT '`: inside the
 * parenthesised column list, every line starting with an identifier followed by a type.
 */
function columnsWithoutComment(statement: string): string[] {
  const open = statement.indexOf('(');
  if (open === -1) throw new Error(`no column list in: ${statement.slice(0, 80)}`);
  let depth = 0;
  let close = -1;
  let quoted = false;
  for (let i = open; i < statement.length && close === -1; i++) {
    const c = statement[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
    } else if (c === "'") quoted = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) close = i;
  }
  if (close === -1) throw new Error(`unbalanced column list in: ${statement.slice(0, 80)}`);
  return statement
    .slice(open + 1, close)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*\s+[A-Z][A-Za-z0-9]*/.test(line))
    .filter((line) => !line.includes("COMMENT '"));
}

describe('migrations', () => {
  const files = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
  const read = (file: string) => splitStatements(readFileSync(path.join(MIGRATIONS, file), 'utf8'));

  it('finds the migration files', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
    expect(files[0]).toBe('001_profiles.sql');
  });

  /**
   * Migrations only create, so that re-running one after a crash changes nothing. The
   * exceptions, each with its reason: 010 rebuilds recommendations (derived rows, a new
   * partition key) and marks the snapshots that pointed at the old rows dropped; 041
   * replaces three views (a view holds no rows: dropping and creating it again loses nothing);
   * 042, 046 and 047 reword column comments (setting one again changes nothing); 043-045 recreate
   * working-set tables (every run rebuilds their rows) and reword comments; 048 counts the
   * followers of the working set a snapshot built before it keeps, once; 053 copies follows
   * into follows_by_followee (a second copy is the same rows under the same replacing key,
   * one row to FINAL); 054 writes the popular list of the working sets built before it, once;
   * 055 copies the transfers' keys into transfers_by_address (a second copy is the same key);
   * 057 drops the SQL ranking's scratch tables (a run's scratch, never of record), adds reason
   * kinds to an Enum8 (setting the same values again changes nothing), rewords comments and
   * replaces latest_recommendations (a view).
   */
  const NOT_CREATE: Record<string, RegExp[]> = {
    '057_in_memory_ranking.sql': [
      /^DROP TABLE IF EXISTS (mat_[a-z_]+|latest_recommendations)$/,
      /^ALTER TABLE recommendations MODIFY COLUMN reason_kind Enum8\(/,
      /^ALTER TABLE recommendations COMMENT COLUMN (score|social_score|counterparty_score|nft_score|fof_score) '/,
    ],
    '010_materialization.sql': [/^DROP TABLE IF EXISTS recommendations$/, /^INSERT INTO recommendation_snapshots /],
    '041_portable_analyst_views.sql': [/^DROP TABLE IF EXISTS (address_nft_holdings|latest_recommendations|latest_profile_tags)$/],
    '042_scoring_fit.sql': [/^ALTER TABLE recommendations COMMENT COLUMN fof_score '/],
    '043_pass_on_depth.sql': [/^DROP TABLE IF EXISTS mat_fof_forward$/, /^ALTER TABLE (mat_fof_edges|mat_fof_back) COMMENT COLUMN (dst_rank|followers) '/],
    '044_exact_paths.sql': [/^DROP TABLE IF EXISTS (mat_first_hops|mat_follower_hops)$/, /^ALTER TABLE mat_fof_edges COMMENT COLUMN dst_rank '/],
    '045_path_budget.sql': [/^DROP TABLE IF EXISTS (mat_first_hops|mat_follower_hops)$/, /^ALTER TABLE (mat_fof_edges|mat_fof_forward) COMMENT COLUMN (dst_rank|candidates) '/],
    '046_popular_padding.sql': [/^ALTER TABLE recommendations COMMENT COLUMN (score|fof_score) '/],
    '047_path_budget_and_weight.sql': [/^ALTER TABLE (recommendations|mat_follow_edges|mat_fof_edges) COMMENT COLUMN (fof_score|src_weight) '/],
    '048_follower_counts_and_ranked.sql': [/^INSERT INTO mat_follower_counts /],
    '053_follows_by_followee.sql': [/^INSERT INTO follows_by_followee /],
    '054_popular_list.sql': [/^INSERT INTO mat_popular /],
    '055_transfers_by_address.sql': [/^INSERT INTO transfers_by_address /],
    '051_path_recency.sql': [
      /^ALTER TABLE (mat_follow_edges|mat_fof_edges|mat_bucket_follows) ADD COLUMN moment UInt16$/,
      /^ALTER TABLE mat_fof_back ADD COLUMN moments Array\(UInt16\)$/,
      /^ALTER TABLE (mat_follow_edges|mat_fof_edges|mat_bucket_follows|mat_fof_back|mat_fof_forward) COMMENT COLUMN (moments?|candidates) '/,
    ],
  };

  it.each(files)('%s splits into statements that each start with CREATE, but for the listed exceptions', (file) => {
    const statements = read(file);
    expect(statements.length).toBeGreaterThan(0);
    const exceptions = NOT_CREATE[file] ?? [];
    for (const statement of statements) {
      if (!exceptions.some((e) => e.test(statement))) expect(statement).toMatch(/^CREATE\s/);
    }
  });

  it.each(files)('%s gives every column of every CREATE TABLE a COMMENT', (file) => {
    const tables = read(file).filter((s) => /^CREATE TABLE\b/.test(s));
    for (const table of tables) expect(columnsWithoutComment(table), table.split('\n')[0]).toEqual([]);
  });

  it('checks every table of the schema (the check is not vacuous)', () => {
    const tables = files.flatMap(read).filter((s) => /^CREATE TABLE\b/.test(s));
    const names = tables.map((t) => /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)/.exec(t)![1]);
    expect(names).toEqual(
      expect.arrayContaining(['profiles', 'profile_identities', 'social_follows', 'transactions', 'ingest_rejects']),
    );
  });

  it('the column check flags a column without a COMMENT and ignores ENGINE lines', () => {
    const statement = `CREATE TABLE t
(
    a  String COMMENT 'has one',
    b  Nullable(DateTime),
    c  Enum8('x' = 1) COMMENT 'also has one'
)
ENGINE = MergeTree ORDER BY a`;
    expect(columnsWithoutComment(statement)).toEqual(['b  Nullable(DateTime),']);
  });
});
