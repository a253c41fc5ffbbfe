/**
 * Per-file isolation on the shared test stack: a database and a BullMQ prefix of its own,
 * migrated before the first test and dropped after the last.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../../shared/config.ts';

export interface TestEnvironment {
  config: Config;
  ch: ClickHouse;
  /** Environment variables for a child process (CLI, workers) that should see this file's database. */
  env: Record<string, string>;
}

export function testEnvironmentVariables(overrides: Record<string, string> = {}): Record<string, string> {
  const id = randomBytes(4).toString('hex');
  return {
    CLICKHOUSE_URL: inject('clickhouseUrl'),
    REDIS_URL: inject('redisUrl'),
    CLICKHOUSE_DATABASE: `soulgraph_test_${id}`,
    QUEUE_PREFIX: `test-${id}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    // Test files run in parallel: servers a process starts take any free port.
    WORKERS_HTTP_PORT: '0',
    ADMIN_PORT: '0',
    ...overrides,
  };
}

export interface TestEnvironmentOptions {
  /** Settings known only once earlier hooks ran (a server the file starts itself); read before migrating. */
  late?: () => Record<string, string>;
}

/** Call at the top of a test file; the environment is ready inside tests and hooks. */
export function useTestEnvironment(overrides: Record<string, string> = {}, options: TestEnvironmentOptions = {}): TestEnvironment {
  const env = testEnvironmentVariables(overrides);
  const holder = { config: parseConfig(env), env, ch: undefined as unknown as ClickHouse };
  beforeAll(async () => {
    if (options.late) {
      Object.assign(env, options.late());
      holder.config = parseConfig(env);
    }
    await migrate(holder.config);
    holder.ch = createClickHouse(holder.config);
  });
  afterAll(async () => {
    await holder.ch?.command(sql`DROP DATABASE IF EXISTS ${identifier(holder.config.CLICKHOUSE_DATABASE)}`);
    await holder.ch?.close();
  });
  return holder;
}
