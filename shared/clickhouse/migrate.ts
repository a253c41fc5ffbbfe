/**
 * Applies the numbered .sql files in ./migrations in order, once each, recording them in
 * schema_migrations. Idempotent, and safe from two processes at once: a lock table whose
 * CREATE (without IF NOT EXISTS) succeeds for exactly one process serializes the runners.
 *
 * With CLICKHOUSE_CLUSTER set, every statement runs in its ON CLUSTER form
 * (cluster-schema.ts): the database, the lock and schema_migrations are created on every
 * node, and each table as its placement says.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { createClickHouse, type ClickHouse } from './client.ts';
import { clusterStatements, type ClusterTarget } from './cluster-schema.ts';
import { identifier, sql, SqlFragment } from './sql-literal.ts';
import { splitStatements } from './sql-statements.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  checksum: string;
  /**
   * Checksums of earlier texts of this file that count as applied: a migration that could
   * not run on every engine we support may be revised once, with a `-- revises: <sha256>`
   * line naming the text it replaces. Deployments that applied the old text are brought to
   * the same state by a later migration (never by running the revised file again).
   */
  revises: string[];
  statements: string[];
}

/** `-- revises: <sha256>` lines of a migration file. */
export function revisedChecksums(text: string): string[] {
  return [...text.matchAll(/^-- revises: ([0-9a-f]{64})$/gm)].map((match) => match[1]!);
}

export interface MigrateOptions {
  database?: string;
  dir?: string;
  /** A lock older than this is taken to be left by a crashed runner. */
  staleLockMs?: number;
  lockTimeoutMs?: number;
  log?: (line: string) => void;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d+)_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`migration file ${file} is not named NNN_name.sql`);
    const text = await readFile(path.join(dir, file), 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: match[2]!,
      checksum: createHash('sha256').update(text).digest('hex'),
      revises: revisedChecksums(text),
      statements: splitStatements(text),
    });
  }
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) throw new Error(`duplicate migration numbers in ${dir}`);
  return migrations;
}

const SCHEMA_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
    (
        version     UInt32   COMMENT 'Number of the migration file',
        name        String   COMMENT 'Name of the migration file',
        checksum    String   COMMENT 'sha256 of the file as applied',
        applied_at  DateTime COMMENT 'When it was applied'
    )
    ENGINE = ReplacingMergeTree
    ORDER BY version`;

const appliedRow = z.object({ version: z.coerce.number(), name: z.string(), checksum: z.string() });

/** Brings the database up to date; returns the names of the migrations it applied. */
export async function migrate(config: Config, options: MigrateOptions = {}): Promise<string[]> {
  const database = options.database ?? config.CLICKHOUSE_DATABASE;
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.dir);

  const target: ClusterTarget | undefined = config.CLICKHOUSE_CLUSTER ? { cluster: config.CLICKHOUSE_CLUSTER, database } : undefined;
  const server = createClickHouse(config, { noDatabase: true });
  try {
    await server.command(sql`CREATE DATABASE IF NOT EXISTS ${identifier(database)}${onCluster(target)}`);
  } finally {
    await server.close();
  }

  const ch = createClickHouse(config, { database });
  try {
    await acquireLock(ch, options, target);
    try {
      return await applyPending(ch, migrations, log, target);
    } finally {
      await ch.command(sql`DROP TABLE IF EXISTS ${lockTable(target)}${onCluster(target)}`);
    }
  } finally {
    await ch.close();
  }
}

/** ` ON CLUSTER <name>` on a cluster, nothing on one server. */
function onCluster(target: ClusterTarget | undefined): SqlFragment {
  return target ? sql` ON CLUSTER ${identifier(target.cluster)}` : sql``;
}

/** The lock table, qualified on a cluster: an ON CLUSTER statement runs on other nodes, in their default database. */
function lockTable(target: ClusterTarget | undefined): SqlFragment {
  return target ? sql`${identifier(target.database)}.schema_migrations_lock` : sql`schema_migrations_lock`;
}

/** A statement of our own, as this server or cluster runs it. */
async function run(ch: ClickHouse, statement: string, version: number, target: ClusterTarget | undefined): Promise<void> {
  const statements = target ? clusterStatements(statement, version, target) : [statement];
  for (const text of statements) await ch.command(new SqlFragment(text));
}

async function applyPending(ch: ClickHouse, migrations: Migration[], log: (line: string) => void, target: ClusterTarget | undefined): Promise<string[]> {
  await run(ch, SCHEMA_MIGRATIONS_TABLE, 0, target);
  const applied = new Map(
    (await ch.query(sql`SELECT version, name, checksum FROM schema_migrations FINAL`, appliedRow)).map((r) => [
      r.version,
      r,
    ]),
  );

  const done: string[] = [];
  for (const migration of migrations) {
    const previous = applied.get(migration.version);
    const label = `${String(migration.version).padStart(3, '0')}_${migration.name}`;
    if (previous) {
      if (previous.checksum !== migration.checksum && !migration.revises.includes(previous.checksum)) {
        throw new Error(
          `migration ${label} was changed after it was applied; add a new migration instead of editing it`,
        );
      }
      continue;
    }
    // Migration files are our own reviewed SQL, not input: they run as written.
    for (const statement of migration.statements) await run(ch, statement, migration.version, target);
    await ch.insert('schema_migrations', [
      {
        version: migration.version,
        name: migration.name,
        checksum: migration.checksum,
        applied_at: Math.floor(Date.now() / 1000),
      },
    ]);
    log(`applied migration ${label}`);
    done.push(label);
  }
  return done;
}

const lockRow = z.object({ age: z.coerce.number() });

async function acquireLock(ch: ClickHouse, options: MigrateOptions, target: ClusterTarget | undefined): Promise<void> {
  const staleMs = options.staleLockMs ?? 10 * 60_000;
  const deadline = Date.now() + (options.lockTimeoutMs ?? 5 * 60_000);
  for (;;) {
    try {
      await ch.command(sql`CREATE TABLE ${lockTable(target)}${onCluster(target)} (pid UInt32) ENGINE = TinyLog`);
      return;
    } catch (error) {
      if (!/already exists/i.test(String(error))) throw error;
    }
    const [lock] = await ch.query(
      sql`SELECT toUInt32(now() - metadata_modification_time) AS age
          FROM system.tables
          WHERE database = ${ch.database} AND name = 'schema_migrations_lock'`,
      lockRow,
    );
    if (lock && lock.age * 1000 > staleMs) {
      options.log?.(`breaking a migration lock left ${lock.age}s ago by a runner that did not finish`);
      await ch.command(sql`DROP TABLE IF EXISTS ${lockTable(target)}${onCluster(target)}`);
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `another process has held the migration lock too long; if none is running: DROP TABLE ${ch.database}.schema_migrations_lock`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
