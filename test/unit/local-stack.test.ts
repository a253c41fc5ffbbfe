import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { ensureLocalStack, type LocalStack } from '../../shared/local-stack/local-stack.ts';

/** Runs SQL over ClickHouse's HTTP interface; returns the status and body text. */
async function clickhouseQuery(url: string, sql: string, user?: { name: string; password: string }) {
  const headers: Record<string, string> = user
    ? { Authorization: `Basic ${Buffer.from(`${user.name}:${user.password}`).toString('base64')}` }
    : {};
  const response = await fetch(url, { method: 'POST', body: sql, headers });
  return { status: response.status, body: (await response.text()).trim() };
}

/** The first reply line to one inline Redis command. */
function redisReply(url: string, command: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(`${command}\r\n`));
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.once('data', (data: string) => {
      socket.end();
      resolve(data.trim());
    });
  });
}

/** True if something accepts TCP connections on the URL's port. */
function portAccepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const analyst = { name: 'analyst', password: 'analyst' };

describe('local stack', () => {
  it('starts private ClickHouse and Redis servers in a temp folder and stops them', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'soulgraph-stack-'));
    let stack: LocalStack | undefined;
    try {
      stack = await ensureLocalStack(parseConfig({}), { dataDir, reuse: false, stateFile: false });
      expect(stack.owned).toBe(true);

      const version = await clickhouseQuery(stack.clickhouseUrl, 'SELECT version()');
      expect(version.status).toBe(200);
      expect(version.body).toMatch(/^\d+\.\d+/);
      expect(await redisReply(stack.redisUrl, 'PING')).toBe('+PONG');
      // BullMQ refuses to run on a Redis that may evict keys.
      expect(await redisReply(stack.redisUrl, 'CONFIG GET maxmemory-policy')).toContain('noeviction');
      // The queues' jobs survive a crash (AOF); the serving copy, a second server, is snapshotted
      // by a child when the serving writer asks, never by a save rule.
      expect(await redisReply(stack.redisUrl, 'CONFIG GET appendonly')).toMatch(/appendonly\s+\$3\s+yes$/);
      expect(stack.servingRedisUrl).not.toBe(stack.redisUrl);
      expect(await redisReply(stack.servingRedisUrl, 'PING')).toBe('+PONG');
      expect(await redisReply(stack.servingRedisUrl, 'CONFIG GET appendonly')).toMatch(/appendonly\s+\$2\s+no$/);
      expect(await redisReply(stack.servingRedisUrl, 'CONFIG GET save')).toMatch(/save\s+\$0$/);
      expect(await redisReply(stack.redisUrl, 'CONFIG GET save')).toMatch(/save\s+\$0$/);

      expect(await clickhouseQuery(stack.clickhouseUrl, 'SELECT 1', analyst)).toEqual({ status: 200, body: '1' });
      const create = await clickhouseQuery(stack.clickhouseUrl, 'CREATE TABLE default.t (x UInt8) ENGINE = Memory', analyst);
      expect(create.status).not.toBe(200);
      expect(create.body).toMatch(/readonly/i);

      await stack.stop();
      await stack.stop(); // idempotent
      expect(await portAccepts(stack.clickhouseUrl)).toBe(false);
      expect(await portAccepts(stack.redisUrl)).toBe(false);
      expect(await portAccepts(stack.servingRedisUrl)).toBe(false);
    } finally {
      await stack?.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 20_000);

  it('starts nothing when both URLs are configured', async () => {
    const config = parseConfig({ CLICKHOUSE_URL: 'http://ch.example:8123', REDIS_URL: 'redis://redis.example:6379' });
    const stack = await ensureLocalStack(config, { searchDirs: [] });
    expect(stack).toMatchObject({ clickhouseUrl: 'http://ch.example:8123', redisUrl: 'redis://redis.example:6379', servingRedisUrl: 'redis://redis.example:6379', owned: false });
    await stack.stop();
  });

  it('serves the serving copy from SERVING_REDIS_URL when it is configured', async () => {
    const config = parseConfig({ CLICKHOUSE_URL: 'http://ch.example:8123', REDIS_URL: 'redis://redis.example:6379', SERVING_REDIS_URL: 'redis://cache.example:6379' });
    const stack = await ensureLocalStack(config, { searchDirs: [] });
    expect(stack).toMatchObject({ redisUrl: 'redis://redis.example:6379', servingRedisUrl: 'redis://cache.example:6379', owned: false });
  });

  it('says how to install the servers when a binary is missing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'soulgraph-stack-'));
    try {
      const start = ensureLocalStack(parseConfig({}), { dataDir, reuse: false, stateFile: false, searchDirs: [dataDir] });
      await expect(start).rejects.toThrow('apt-get install -y clickhouse-server clickhouse-client redis-server');
      await expect(start).rejects.toThrow('docker compose up -d clickhouse redis, then set CLICKHOUSE_URL=http://127.0.0.1:8123');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
