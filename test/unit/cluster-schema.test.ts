/**
 * The migrations' cluster forms (shared/clickhouse/cluster-schema.ts), checked on their text;
 * npm run cluster:check runs them on a real cluster.
 */
import { describe, expect, it } from 'vitest';
import { clusterStatements, rewordsAComment, TABLE_PLACEMENT, withoutComments } from '../../shared/clickhouse/cluster-schema.ts';
import { readMigrations } from '../../shared/clickhouse/migrate.ts';

const target = { cluster: 'soulgraph', database: 'sg' };
const migrations = await readMigrations();
const created = migrations.flatMap((m) =>
  m.statements.flatMap((statement) => {
    const match = /^\s*(?:--.*\n\s*)*CREATE TABLE IF NOT EXISTS (\w+)[\s\S]*?\n\)\s*\nENGINE[\s\S]*?ORDER BY ([^\n;]+)/.exec(statement);
    return match ? [{ version: m.version, table: match[1]!, orderBy: match[2]!.trim(), statement }] : [];
  }),
);

describe('cluster forms of the migrations', () => {
  it('gives every migration statement an ON CLUSTER form, and every table a placement', () => {
    for (const migration of migrations) {
      for (const statement of migration.statements) {
        const forms = clusterStatements(statement, migration.version, target);
        // Only a comment's rewording has nothing to do on a cluster (its tables hold no comments).
        if (!rewordsAComment(statement)) expect(forms.length).toBeGreaterThan(0);
        // INSERT runs once, and so does a column added to a table replicated everywhere (below).
        for (const form of forms) if (!/^INSERT|^ALTER TABLE \S+ ADD COLUMN/.test(form)) expect(form).toContain('ON CLUSTER `soulgraph`');
      }
    }
    expect(created.length).toBeGreaterThan(30);
  });

  it('shards each table by a function of its ORDER BY columns only, so every version of a row lands on one shard', () => {
    for (const { table, orderBy } of created) {
      const placement = TABLE_PLACEMENT[table]!;
      if (placement.kind !== 'sharded') continue;
      const keyColumns = [...placement.key.matchAll(/\b([a-z_]+)\b/g)].map((m) => m[1]!).filter((name) => name !== 'cityHash64');
      const sortColumns = orderBy.replace(/[()]/g, '').split(',').map((c) => c.trim());
      expect(keyColumns.length, table).toBeGreaterThan(0);
      for (const column of keyColumns) expect(sortColumns, `${table} is sharded by ${column}`).toContain(column);
    }
  });

  it('creates a sharded table as Replicated <name>_local per shard plus a Distributed <name> over them', () => {
    const profiles = created.find((c) => c.table === 'profiles')!;
    const [local, distributed] = clusterStatements(profiles.statement, profiles.version, target);
    expect(local).toMatch(/^CREATE TABLE IF NOT EXISTS `sg`\.profiles_local ON CLUSTER `soulgraph` /);
    expect(local).toContain("ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/sg/profiles_local/1', '{replica}', updated_at)");
    expect(distributed).toBe(
      "CREATE TABLE IF NOT EXISTS `sg`.profiles ON CLUSTER `soulgraph` AS `sg`.profiles_local ENGINE = Distributed('soulgraph', 'sg', 'profiles_local', cityHash64(profile_id))",
    );
  });

  it('replicates a working-set table to every node under one ZooKeeper path', () => {
    const edges = created.find((c) => c.table === 'mat_follow_edges')!;
    const forms = clusterStatements(edges.statement, edges.version, target);
    expect(forms).toHaveLength(1);
    expect(forms[0]).toContain("ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/sg/mat_follow_edges/10', '{replica}')");
  });

  it('leaves column comments off replicated tables (18.16 refuses a second replica of a table with one)', () => {
    expect(withoutComments("(a String COMMENT 'x, (y)', b UInt8 COMMENT 'it''s', c Array(String))")).toBe('(a String, b UInt8, c Array(String))');
    for (const { statement, version } of created) {
      for (const form of clusterStatements(statement, version, target)) expect(form).not.toMatch(/\bCOMMENT\b/);
    }
  });

  it('names the tables of a view in full, since each node checks it in its default database', () => {
    const view = 'CREATE VIEW IF NOT EXISTS current_follows AS\nSELECT a FROM follows FINAL ALL LEFT JOIN (SELECT b FROM profiles) AS p USING (a)';
    expect(clusterStatements(view, 40, target)).toEqual([
      'CREATE VIEW IF NOT EXISTS `sg`.current_follows ON CLUSTER `soulgraph` AS\nSELECT a FROM `sg`.follows FINAL ALL LEFT JOIN (SELECT b FROM `sg`.profiles) AS p USING (a)',
    ]);
  });

  it('adds a column to a table replicated everywhere on one replica, without its comment, and refuses to on a sharded table', () => {
    expect(clusterStatements("ALTER TABLE mat_follow_edges ADD COLUMN moment UInt16 COMMENT 'when, (roughly)'", 51, target)).toEqual([
      'ALTER TABLE `sg`.mat_follow_edges ADD COLUMN moment UInt16',
    ]);
    expect(() => clusterStatements("ALTER TABLE follows ADD COLUMN moment UInt16 COMMENT 'x'", 51, target)).toThrow(/no cluster form for adding a column to the sharded table follows/);
  });

  it('refuses a table the placement plan does not name', () => {
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS brand_new\n(\n    a String\n)\nENGINE = MergeTree\nORDER BY a', 99, target)).toThrow(/no cluster placement/);
  });
});
