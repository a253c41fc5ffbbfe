/**
 * The text of a JSON Lines chunk travels beside its job, not in it (chunk-texts.ts): it
 * lasts exactly as long as the job needs it, through completion, failure, retry and removal.
 */
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { ingestJobOptions, ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { ChunkTexts, UNCLAIMED_SECONDS } from '../../pipeline/ingest/chunk-texts.ts';
import { runIngest } from '../../pipeline/ingest/ingest-run.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { runSoulgraph, waitFor } from '../support/child-process.ts';
import { logicalRows, silentLogger, writeJsonLines } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { numberedTransaction } from '../fixtures/transactions.ts';

const env = useTestEnvironment({ INGEST_JOB_ATTEMPTS: '1' });
const QUEUE = ingestQueueName('transactions');
let queue: Queue;
let redis: Redis;
let texts: ChunkTexts;

const tx = (n: number) => numberedTransaction(n, 'c');

/** Keys of stored chunk texts in this file's queue. */
const storedTexts = () => redis.keys(`${env.config.QUEUE_PREFIX}:${QUEUE}:chunk-text:*`);

async function settled(jobId: string): Promise<Job> {
  await waitFor(async () => ['failed', 'completed'].includes(await queue.getJobState(jobId)), 30_000, `job ${jobId} to settle`);
  return (await queue.getJob(jobId))!;
}

beforeAll(async () => {
  queue = new Queue(QUEUE, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX, defaultJobOptions: ingestJobOptions(env.config) });
  redis = new Redis(redisConnection(env.config, 'worker'));
  texts = new ChunkTexts(redis, env.config.QUEUE_PREFIX);
});
afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
});

describe('a chunk read by soulgraph ingest', () => {
  it('travels as a small job naming its stored text, which is deleted once the job completed', async () => {
    const file = await writeJsonLines('stored.jsonl', [tx(1), tx(2), tx(3)]);
    const workers = await startWorkers(env.config, silentLogger, { kinds: ['transactions'], maintenance: false });
    let added: Job | undefined;
    try {
      const summary = await runIngest(env.config, { kind: 'transactions', files: [file], format: 'canonical', chunkRows: 2, pollMs: 50 });
      expect(summary).toMatchObject({ chunks: 2, accepted: 3, rejected: 0, failedChunks: [] });
      [added] = await queue.getCompleted(0, 0);
    } finally {
      await workers.close();
    }
    expect(added!.data).toEqual({ kind: 'transactions', source: file, format: 'canonical', textBytes: expect.any(Number), firstLine: expect.any(Number) });
    await waitFor(async () => (await storedTexts()).length === 0, 10_000, 'the stored texts to be deleted');
    expect(await logicalRows(env, 'transactions')).toBe(3);
  });
});

describe('a job whose stored text', () => {
  it('is missing fails at once, naming the key, although more attempts are allowed', async () => {
    const workers = await startWorkers(env.config, silentLogger, { kinds: ['transactions'], maintenance: false });
    try {
      const job = await queue.add('chunk', { kind: 'transactions', source: 'gone', format: 'canonical', textBytes: 10, firstLine: 1 }, { jobId: 'gone-1', attempts: 3 });
      const failed = await settled(job.id!);
      expect(failed.attemptsMade).toBe(1);
      expect(failed.failedReason).toBe(`the text of chunk gone-1 is not stored (${texts.keyOf(QUEUE, 'gone-1')} is gone)`);
    } finally {
      await workers.close();
    }
  });

  it('failed to insert is kept, so that soulgraph retry ingests it once the cause is fixed', async () => {
    const workers = await startWorkers(env.config, silentLogger, { kinds: ['transactions'], maintenance: false });
    try {
      const bytes = Buffer.from(`${JSON.stringify(tx(10))}\n${JSON.stringify(tx(11))}`);
      await env.ch.command(sql`RENAME TABLE transactions TO transactions_away`);
      try {
        await texts.put(QUEUE, 'retry-1', bytes);
        await queue.add('chunk', { kind: 'transactions', source: 'retry', format: 'canonical', textBytes: bytes.length, firstLine: 1 }, { jobId: 'retry-1' });
        await texts.claim(QUEUE, 'retry-1');
        expect((await settled('retry-1')).failedReason).toMatch(/transactions/);
      } finally {
        await env.ch.command(sql`RENAME TABLE transactions_away TO transactions`);
      }
      expect(await texts.get(QUEUE, 'retry-1')).toEqual(bytes);

      const { code, output } = await runSoulgraph(['retry', '--queue', QUEUE, '--job', 'retry-1'], env.env);
      expect(code, output).toBe(0);
      await waitFor(async () => (await queue.getJobState('retry-1')) === 'completed', 30_000, 'the retried job');
      expect(await logicalRows(env, 'transactions')).toBe(5);
      await waitFor(async () => (await texts.get(QUEUE, 'retry-1')) === null, 10_000, 'the text to be deleted');
    } finally {
      await workers.close();
    }
  });
});

describe('sweeping stored texts', () => {
  it('deletes the texts whose job is gone, and keeps those of existing jobs and those not yet claimed', async () => {
    await queue.pause();
    try {
      for (const id of ['kept', 'removed', 'unclaimed']) await texts.put(QUEUE, id, Buffer.from(id));
      await queue.add('chunk', { kind: 'transactions', source: 'sweep', format: 'canonical', textBytes: 4, firstLine: 1 }, { jobId: 'kept' });
      await queue.add('chunk', { kind: 'transactions', source: 'sweep', format: 'canonical', textBytes: 7, firstLine: 1 }, { jobId: 'removed' });
      await texts.claim(QUEUE, 'kept');
      await texts.claim(QUEUE, 'removed');
      await queue.remove('removed');

      expect(await texts.sweep()).toBe(1);
      expect(await texts.get(QUEUE, 'kept')).toEqual(Buffer.from('kept'));
      expect(await texts.get(QUEUE, 'removed')).toBeNull();
      expect(await texts.get(QUEUE, 'unclaimed')).toEqual(Buffer.from('unclaimed'));
      expect(await redis.ttl(texts.keyOf(QUEUE, 'unclaimed'))).toBeGreaterThan(UNCLAIMED_SECONDS - 60);
    } finally {
      await queue.obliterate({ force: true });
    }
  });
});
