import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { ingestJobOptions, ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { runIngest } from '../../pipeline/ingest/ingest-run.ts';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

// Short locks so the killed worker's jobs are handed over within seconds.
const env = useTestEnvironment({ INGEST_LOCK_MS: '2000', INGEST_WORKER_CONCURRENCY: '2' });
const ROWS = 120_000;

async function writeTransactions(rows: number): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'crash-')), 'transactions.jsonl');
  const out = createWriteStream(file);
  for (let n = 0; n < rows; n++) {
    const line = JSON.stringify({
      chainId: 1,
      hash: `0x${n.toString(16).padStart(64, '0')}`,
      blockNumber: n,
      blockTime: 1_700_000_000 + n,
      from: `0x${(n % 5000).toString(16).padStart(40, '0')}`,
      to: `0x${((n * 7) % 5000).toString(16).padStart(40, 'f')}`,
      value: `${n}`,
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

describe('a worker killed in the middle of a large ingest', () => {
  it('loses and duplicates nothing once another worker takes over', async () => {
    const file = await writeTransactions(ROWS);
    const queue = new Queue(ingestQueueName('transactions'), {
      connection: redisConnection(env.config, 'producer'),
      prefix: env.config.QUEUE_PREFIX,
      defaultJobOptions: ingestJobOptions(env.config),
    });
    const first = spawnSoulgraph(['workers', '--kinds', 'transactions'], env.env);
    await waitFor(async () => (await queue.getWorkersCount()) > 0, 30_000, 'the first worker');

    const ingest = runIngest(env.config, { kind: 'transactions', files: [file], format: 'canonical', chunkRows: 2_000, pollMs: 50 });
    await waitFor(async () => {
      const counts = await queue.getJobCounts('completed', 'active');
      return (counts.completed ?? 0) >= 8 && (counts.active ?? 0) > 0;
    }, 60_000, 'the first worker to be busy');
    first.kill('SIGKILL');
    expect((await exitOf(first)).signal).toBe('SIGKILL');
    const unfinished = await queue.getJobCounts('waiting', 'active');
    expect((unfinished.waiting ?? 0) + (unfinished.active ?? 0)).toBeGreaterThan(0);

    const second = spawnSoulgraph(['workers', '--kinds', 'transactions'], env.env);
    const summary = await ingest;
    expect(summary.failedChunks).toEqual([]);
    expect(summary.accepted).toBe(ROWS);

    const [stored] = await env.ch.query(
      sql`SELECT count() AS logical, uniqExact(hash) AS hashes, sum(toUInt64(value)) AS total FROM transactions FINAL`,
      z.object({ logical: z.coerce.number(), hashes: z.coerce.number(), total: z.coerce.number() }),
    );
    expect(stored).toEqual({ logical: ROWS, hashes: ROWS, total: ((ROWS - 1) * ROWS) / 2 });

    second.kill('SIGTERM');
    expect(await exitOf(second)).toEqual({ code: 0, signal: null });
    await queue.close();
  }, 180_000);
});
