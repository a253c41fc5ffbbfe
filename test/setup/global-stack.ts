/**
 * Starts the local stack once for the test run, in a throwaway folder, and hands its URLs
 * to every test file. Set CLICKHOUSE_URL and REDIS_URL to test against servers of your own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { parseConfig } from '../../shared/config.ts';
import { ensureLocalStack, type LocalStack } from '../../shared/local-stack/local-stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    clickhouseUrl: string;
    redisUrl: string;
  }
}

let stack: LocalStack | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-test-'));
  const config = parseConfig({ CLICKHOUSE_URL: process.env.CLICKHOUSE_URL, REDIS_URL: process.env.REDIS_URL });
  stack = await ensureLocalStack(config, { dataDir, reuse: false, stateFile: false });
  project.provide('clickhouseUrl', stack.clickhouseUrl);
  project.provide('redisUrl', stack.redisUrl);
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
