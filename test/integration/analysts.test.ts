/**
 * The analysts' side: the read-only `analyst` account the local stack creates, the views,
 * and docs/analysts.md, whose every example query runs here as that account against the
 * demo world `npm start` ingests.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { generatedKinds, generateWorld } from '../../pipeline/generate/world-generator.ts';
import { runIngest } from '../../pipeline/ingest/ingest-run.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { codeBlocks, sections, tableFirstColumn } from '../support/markdown-sections.ts';
import { materializeNow, silentLogger, writeJsonLines } from '../support/pipeline-harness.ts';

import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const doc = readFileSync(new URL('../../docs/analysts.md', import.meta.url), 'utf8');

const VIEWS = [
  'current_profiles',
  'profile_addresses',
  'current_follows',
  'current_social_follows',
  'nft_holdings',
  'address_nft_holdings',
  'snapshot_status',
  'latest_recommendations',
  'latest_profile_tags',
  'chain_ingestion_lag',
];

/** A statement over ClickHouse's HTTP interface as the analyst, the way docs/analysts.md connects. */
async function asAnalyst(statement: string): Promise<{ ok: boolean; text: string }> {
  const url = new URL(env.config.CLICKHOUSE_URL!);
  url.searchParams.set('database', env.config.CLICKHOUSE_DATABASE);
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from('analyst:analyst').toString('base64')}` },
    body: statement,
  });
  return { ok: response.ok, text: await response.text() };
}

async function rowsAsAnalyst(query: string): Promise<{ ok: boolean; text: string; rows: unknown[] }> {
  const result = await asAnalyst(`${query}\nFORMAT JSON`);
  return { ...result, rows: result.ok ? (JSON.parse(result.text) as { data: unknown[] }).data : [] };
}

async function schemaObjects(): Promise<{ name: string; engine: string }[]> {
  return env.ch.query(
    sql`SELECT name, engine FROM system.tables
        WHERE database = ${env.config.CLICKHOUSE_DATABASE} AND name != 'schema_migrations_lock'
        ORDER BY name`,
    z.object({ name: z.string(), engine: z.string() }),
  );
}

async function columnsOf(table: string): Promise<string[]> {
  const rows = await env.ch.query(
    sql`SELECT name FROM system.columns WHERE database = ${env.config.CLICKHOUSE_DATABASE} AND table = ${table}`,
    z.object({ name: z.string() }),
  );
  return rows.map((r) => r.name).sort();
}

beforeAll(async () => {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-analysts-'));
  const manifest = await generateWorld({ profiles: env.config.DEMO_PROFILES, seed: env.config.DEMO_SEED, outDir });
  const workers = await startWorkers(env.config, silentLogger, { kinds: generatedKinds, maintenance: false });
  try {
    // Profiles come first in generatedKinds: the rest refers to them.
    for (const kind of generatedKinds) {
      const file = path.join(outDir, manifest.files[kind]!.file);
      await runIngest(env.config, { kind, files: [file], format: 'canonical', chunkRows: 10_000, pollMs: 50, sourceName: (f) => `demo/${path.basename(f)}` });
    }
    // Two records the pipeline refuses, so that the rejects example has something to find.
    const bad = await writeJsonLines('bad-transactions.jsonl', ['{"chainId":1,"hash":"0x12"}', 'not json']);
    await runIngest(env.config, { kind: 'transactions', files: [bad], format: 'canonical', chunkRows: 10, pollMs: 50 });
  } finally {
    await workers.close();
  }
  await materializeNow(env);
}, 180_000);

describe('the read-only analyst account', () => {
  it('can SELECT from every table and view, views included (they read their tables as the analyst)', async () => {
    const objects = await schemaObjects();
    expect(objects.map((o) => o.name)).toEqual(expect.arrayContaining(VIEWS));
    for (const { name } of objects) {
      const result = await asAnalyst(`SELECT * FROM ${name} LIMIT 1`);
      expect(result.ok, `${name}: ${result.text}`).toBe(true);
    }
  });

  it.each([
    ['INSERT', "INSERT INTO follows (follower_profile_id, followee_profile_id) VALUES ('p_x', 'p_y')"],
    ['ALTER ... DELETE', 'ALTER TABLE follows DELETE WHERE 1 = 1'],
    ['ALTER ... ADD COLUMN', 'ALTER TABLE follows ADD COLUMN note String'],
    ['DROP TABLE', 'DROP TABLE follows'],
    ['DROP VIEW', 'DROP TABLE current_follows'],
    ['TRUNCATE', 'TRUNCATE TABLE follows'],
    ['CREATE TABLE', 'CREATE TABLE scratch (x UInt8) ENGINE = Memory'],
    ['RENAME', 'RENAME TABLE follows TO follows_old'],
    ['OPTIMIZE', 'OPTIMIZE TABLE follows FINAL'],
    ['SET (a settings change)', 'SET max_memory_usage = 100000000000'],
  ])('is refused %s, and the data stays as it was', async (_what, statement) => {
    const before = await env.ch.query(sql`SELECT count() AS n FROM follows`, z.object({ n: z.coerce.number() }));
    const result = await asAnalyst(statement);
    expect(result.ok).toBe(false);
    expect(result.text).toMatch(/readonly mode/);
    const after = await env.ch.query(sql`SELECT count() AS n FROM follows`, z.object({ n: z.coerce.number() }));
    expect(after).toEqual(before);
    expect(before[0]!.n).toBeGreaterThan(0);
  });
});

describe('docs/analysts.md', () => {
  const views = sections(sections(doc, 2).find((s) => s.title === 'Views')!.body, 3);
  const tables = sections(sections(doc, 2).find((s) => s.title === 'Tables')!.body, 3);
  const examples = sections(sections(doc, 2).find((s) => s.title === 'Example queries')!.body, 3).map((s) => ({
    title: s.title,
    query: codeBlocks(s.body, 'sql')[0] ?? '',
  }));

  it('describes every table and view of the schema, each with exactly its columns', async () => {
    const documented = new Map([...views, ...tables].map((s) => [/^`([^`]+)`$/.exec(s.title)?.[1] ?? s.title, s.body]));
    const objects = await schemaObjects();
    expect([...documented.keys()].sort()).toEqual(objects.map((o) => o.name).sort());
    for (const { name } of objects) {
      expect(tableFirstColumn(documented.get(name)!).sort(), name).toEqual(await columnsOf(name));
    }
  });

  it('lists the views under Views and the tables under Tables', async () => {
    const objects = await schemaObjects();
    const names = (list: typeof views) => list.map((s) => s.title.replaceAll('`', '')).sort();
    expect(names(views)).toEqual(objects.filter((o) => o.engine === 'View').map((o) => o.name).sort());
    expect(names(tables)).toEqual(objects.filter((o) => o.engine !== 'View').map((o) => o.name).sort());
  });

  it('has eleven example queries', () => {
    expect(examples).toHaveLength(11);
    for (const example of examples) expect(example.query, example.title).not.toBe('');
  });

  it.each(examples.map((e) => [e.title, e.query] as const))('example "%s" runs as the analyst and answers rows', async (_title, query) => {
    const result = await rowsAsAnalyst(query);
    expect(result.ok, result.text).toBe(true);
    expect(result.rows.length).toBeGreaterThan(0);
  });
});
