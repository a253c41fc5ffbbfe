/**
 * Redis killed in the middle of `soulgraph ingest` and started again: the run ends, with
 * exit code 1 and its summary, instead of waiting forever for a connection to close. A
 * Redis of this file's own, since killing the shared one would break every other test file.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { numberedTransaction } from '../fixtures/transactions.ts';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { usePrivateRedis } from '../support/private-redis.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const redis = usePrivateRedis('redis-restart');
const env = useTestEnvironment({}, { late: () => ({ REDIS_URL: redis.url }) });

async function writeTransactions(rows: number): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'redis-restart-')), 'transactions.jsonl');
  const out = createWriteStream(file);
  for (let n = 0; n < rows; n++) if (!out.write(`${JSON.stringify(numberedTransaction(n, 'e'))}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return file;
}


async function waitingChunks(): Promise<number> {
  const queue = new Queue(ingestQueueName('transactions'), { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
  try {
    return await queue.getWaitingCount();
  } finally {
    await queue.close();
  }
}

describe('soulgraph ingest when Redis dies mid-run', () => {
  it('exits with code 1 and its summary once Redis is back, instead of hanging', async () => {
    const file = await writeTransactions(20_000);
    // No worker runs: the CLI queues its chunks and waits for them to finish, so Redis dies
    // mid-run however fast or slow the machine (with workers, a quick one finished first).
    const ingest = spawnSoulgraph(['ingest', 'transactions', file, '--chunk-rows', '2000', '--workers', 'no'], env.env);
    await waitFor(async () => (await waitingChunks()) > 0, 60_000, 'the first chunks queued');

    // Down for several of the run's 2 s polls: a poll that meets the dead Redis fails the run.
    // (Down for 3 s, a loaded CI run once hung: most likely its poll came only after Redis was
    // back, found the chunk gone, counted it failed, queued the rest and waited for workers.)
    await redis.kill();
    await sleep(8_000);
    await redis.startAgain();

    const ended = await Promise.race([exitOf(ingest), sleep(60_000).then(() => 'still running' as const)]);
    if (ended === 'still running') ingest.kill('SIGKILL');
    expect(ended, ingest.output()).not.toBe('still running');
    expect(ended).toMatchObject({ code: 1 });
    // The summary of what was done, why the run stopped, and what to do.
    expect(ingest.output()).toMatch(/transactions: \d+ accepted, \d+ rejected, \d+ read in \d+ chunks?\b/);
    expect(ingest.output()).toContain('soulgraph: the run stopped before its end:');
    expect(ingest.output()).toContain('run the same command again once Redis answers');
    // One account of the failure, not a stack per reconnect attempt.
    expect(ingest.output()).not.toContain('Unhandled error event');
  }, 120_000);
});
