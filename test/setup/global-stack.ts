/**
 * Starts the local stack once for the test run, in a throwaway folder, and hands its URLs
 * to every test file. Set CLICKHOUSE_URL and REDIS_URL to test against servers of your own.
 * Current ClickHouse (chdb, in a process of its own) starts beside it, for the tests that
 * run every statement on both versions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { parseConfig } from '../../shared/config.ts';
import { ensureLocalStack, type LocalStack } from '../../shared/local-stack/local-stack.ts';
import type { RunningService } from '../../shared/local-stack/running-service.ts';
import { startChdb } from '../support/chdb-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    clickhouseUrl: string;
    redisUrl: string;
    /** Current ClickHouse (chdb) behind its HTTP front. */
    chdbUrl: string;
  }
}

let stack: LocalStack | undefined;
let chdb: RunningService | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-test-'));
  const config = parseConfig({ CLICKHOUSE_URL: process.env.CLICKHOUSE_URL, REDIS_URL: process.env.REDIS_URL });
  [stack, chdb] = await Promise.all([
    // One Redis for queues and serving copy (SERVING_REDIS_URL unset), as a deployment may run it;
    // test/e2e/serving-redis.test.ts runs the two apart.
    ensureLocalStack(config, { dataDir, reuse: false, stateFile: false, servingRedis: false }),
    startChdb(path.join(dataDir, 'chdb')),
  ]);
  project.provide('clickhouseUrl', stack.clickhouseUrl);
  project.provide('redisUrl', stack.redisUrl);
  project.provide('chdbUrl', chdb.url);
}

export async function teardown(): Promise<void> {
  await Promise.all([stack?.stop(), chdb?.stop()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
