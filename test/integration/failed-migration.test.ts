/**
 * A process that cannot bring the schema up to date says why and ends, and the local
 * servers it started for itself end with it (their supervision once kept the CLI running
 * after the error was shown, until someone pressed Ctrl-C).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { ensureLocalStack, localStackState } from '../../shared/local-stack/local-stack.ts';
import { runSoulgraph } from '../support/child-process.ts';

const DATABASE = 'tampered';
let dataDir: string;

/** Processes whose command line names the data folder: the local servers started on it. */
function serversOn(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', dir], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

beforeAll(async () => {
  // A database whose record of migration 001 no longer matches the file, as after an edit.
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-failed-migration-'));
  const stack = await ensureLocalStack(parseConfig({}), { dataDir, reuse: false });
  try {
    const config = parseConfig({ CLICKHOUSE_URL: stack.clickhouseUrl, CLICKHOUSE_DATABASE: DATABASE });
    await migrate(config);
    const ch = createClickHouse(config);
    await ch.command(sql`INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (1, '001_profiles', 'edited', now())`);
    await ch.command(sql`OPTIMIZE TABLE schema_migrations FINAL`);
    await ch.close();
  } finally {
    await stack.stop();
  }
}, 120_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a CLI command whose migration is refused', () => {
  it('exits 1 naming the migration, and stops the local servers it started', async () => {
    const { code, output } = await runSoulgraph(['status'], { DATA_DIR: dataDir, CLICKHOUSE_DATABASE: DATABASE });
    expect(output).toContain('migration 001_profiles was changed after it was applied');
    expect(code).toBe(1);
    expect(await localStackState(dataDir)).toBeUndefined();
    expect(serversOn(dataDir)).toEqual([]);
  }, 120_000);
});
