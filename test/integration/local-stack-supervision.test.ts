/**
 * The local stack (npm start, the CLI, tests) keeps its servers running: a ClickHouse or
 * Redis that dies is started again on the same URL and data, the owner's state file shows
 * the new pid and the restart, and `soulgraph status` shows them.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { pingClickHouse } from '../../shared/local-stack/clickhouse-server.ts';
import { ensureLocalStack, localStackState, type LocalStack } from '../../shared/local-stack/local-stack.ts';
import { pingRedis } from '../../shared/local-stack/redis-server.ts';
import { runSoulgraph, waitFor } from '../support/child-process.ts';

let dataDir: string;
let stack: LocalStack;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-supervised-'));
  stack = await ensureLocalStack(parseConfig({}), { dataDir, reuse: false, log: (line) => lines.push(line) });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['redis', 'redis-server', () => pingRedis(stack.redisUrl)],
  ['servingRedis', 'redis-server (serving copy)', () => pingRedis(stack.servingRedisUrl)],
  ['clickhouse', 'clickhouse-server', () => pingClickHouse(stack.clickhouseUrl)],
] as const)('a local %s killed with SIGKILL', (name, binary, answers) => {
  it('is started again on the same URL, with a log line, and the state file counts the restart', async () => {
    const before = (await localStackState(dataDir))![name]!;
    process.kill(before.pid, 'SIGKILL');
    await waitFor(async () => ((await localStackState(dataDir))?.[name]?.restarts ?? 0) === 1, 60_000, `${binary} to run again`);
    const after = (await localStackState(dataDir))![name]!;
    expect(after.url).toBe(before.url);
    expect(after.pid).not.toBe(before.pid);
    expect(after.lastRestart!.reason).toBe('exited on SIGKILL');
    expect(await answers()).toBe(true);
    expect(lines.some((l) => l.startsWith(`${binary} (pid ${before.pid}) exited on SIGKILL: starting it again in 1 s`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`${binary} running again on ${before.url} (pid ${after.pid}, restart 1)`))).toBe(true);
  }, 90_000);
});

describe('soulgraph status', () => {
  it('shows the local servers with their restarts', async () => {
    const { code, output } = await runSoulgraph(['status'], {
      DATA_DIR: dataDir,
      CLICKHOUSE_URL: stack.clickhouseUrl,
      REDIS_URL: stack.redisUrl,
      CLICKHOUSE_DATABASE: 'soulgraph_supervised',
      QUEUE_PREFIX: 'supervised',
    });
    expect(code, output).toBe(0);
    const state = JSON.parse(await readFile(path.join(dataDir, 'stack.json'), 'utf8'));
    expect(output).toMatch(new RegExp(`redis-server \\(queues\\) +${state.redis.url} +${state.redis.pid} +1 +\\d{4}-`));
    expect(output).toMatch(new RegExp(`redis-server \\(serving copy\\) +${state.servingRedis.url} +${state.servingRedis.pid} +1 +\\d{4}-`));
    expect(output).toMatch(new RegExp(`clickhouse-server +${state.clickhouse.url} +${state.clickhouse.pid} +1 +\\d{4}-`));
  }, 60_000);
});

describe('a local server stopped with SIGTERM', () => {
  it('stays stopped: it was asked to stop (as Ctrl-C asks the whole process group)', async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-supervised-term-'));
    const said: string[] = [];
    const other = await ensureLocalStack(parseConfig({ CLICKHOUSE_URL: stack.clickhouseUrl }), { dataDir: own, reuse: false, log: (line) => said.push(line) });
    try {
      const { pid } = (await localStackState(own))!.redis!;
      process.kill(pid, 'SIGTERM');
      await waitFor(async () => said.some((l) => l.includes('it was asked to stop, so it stays stopped')), 30_000, 'the stop to be seen');
      expect((await localStackState(own))!.redis!.restarts ?? 0).toBe(0);
      expect(await pingRedis(other.redisUrl)).toBe(false);
    } finally {
      await other.stop();
      await rm(own, { recursive: true, force: true });
    }
  }, 60_000);
});
