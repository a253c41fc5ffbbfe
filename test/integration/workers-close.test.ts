/**
 * Closing the workers when their Redis is gone. BullMQ's Worker.close() then never resolves
 * (it waits for its blocking connection to end, which a reconnecting ioredis client never
 * does: bullmq#4656); startWorkers' close() gives them a grace, names them and goes on, so
 * that a process shutting down ends. A Redis of this file's own, since killing the shared one
 * would break every other test file.
 */
import { Worker } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { redisConnection } from '../../shared/redis.ts';
import { settlesWithin } from '../../pipeline/settles-within.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { usePrivateRedis } from '../support/private-redis.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const redis = usePrivateRedis('workers-close');
const env = useTestEnvironment({}, { late: () => ({ REDIS_URL: redis.url }) });

/** Kills the Redis and lets the clients see it: a client still `ready` would end at once. */
async function killRedis(): Promise<void> {
  await redis.kill();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}

describe('closing the workers after their Redis died', () => {
  it("finds BullMQ's own Worker.close() still never returning: the hang the grace is there for", async () => {
    const worker = new Worker('close-contract', async () => {}, { connection: redisConnection(env.config, 'worker'), prefix: `${env.config.QUEUE_PREFIX}-contract` });
    worker.on('error', () => {});
    await worker.waitUntilReady();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await killRedis();
    try {
      // If this starts to close on its own, BullMQ fixed #4656 and the grace can go.
      expect(await settlesWithin(worker.close(), 5_000)).toBe(false);
    } finally {
      void worker.disconnect().catch(() => {});
      await redis.startAgain();
    }
  }, 60_000);

  it('disconnects, after the grace, the workers still closing, names their queues, and closes the rest', async () => {
    const lines: { msg: string; queues?: string[] }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const running = await startWorkers(env.config, logger, { kinds: ['follows'], maintenance: false, materialize: false, closeGraceMs: 2_000 });
    const printed = vi.spyOn(console, 'error');
    expect(running.stillClosing()).toEqual(['ingest-follows']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await killRedis();
    try {
      const started = Date.now();
      expect(await settlesWithin(running.close(), 15_000)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(running.stillClosing()).toEqual(['ingest-follows']);
      expect(lines.filter((l) => /did not close in time/.test(l.msg))).toEqual([expect.objectContaining({ queues: ['ingest-follows'] })]);
      // The outage is logged, not printed as a stack per reconnect attempt of each client.
      expect(printed.mock.calls.map(([text]) => String(text)).filter((text) => text.includes('Unhandled error event'))).toEqual([]);
    } finally {
      printed.mockRestore();
      await redis.startAgain();
    }
  }, 60_000);

  it('closes within the grace, naming nothing, while Redis is up', async () => {
    const running = await startWorkers(env.config, pino({ level: 'silent' }), { kinds: ['follows'], maintenance: false, materialize: false, closeGraceMs: 10_000 });
    await running.close();
    expect(running.stillClosing()).toEqual([]);
  }, 60_000);
});
