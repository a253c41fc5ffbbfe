/**
 * Failed jobs: a payload that can never pass fails at once without retries; failures are
 * kept with their reason; `soulgraph retry` puts them back once the cause is fixed.
 */
import { Queue, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { ingestJobOptions, ingestQueueName, type IngestJobPayload } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { runSoulgraph, waitFor } from '../support/child-process.ts';
import { runCliInProcess } from '../support/cli-in-process.ts';
import { logicalRows, silentLogger } from '../support/pipeline-harness.ts';
import { sampleValue } from '../support/prometheus-text.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { numberedTransaction } from '../fixtures/transactions.ts';

const env = useTestEnvironment({ INGEST_JOB_ATTEMPTS: '5' });
const QUEUE = ingestQueueName('transactions');
let queue: Queue;
let workers: RunningWorkers;

const transaction = (n: number) => JSON.stringify(numberedTransaction(n, 'a'));
const chunk = (rows: string[]): IngestJobPayload => ({ kind: 'transactions', source: 'failed-jobs.test', format: 'canonical', text: rows.join('\n'), firstLine: 1 });

async function settled(job: Job): Promise<Job> {
  await waitFor(async () => ['failed', 'completed'].includes(await queue.getJobState(job.id!)), 30_000, `job ${job.id} to settle`);
  return (await queue.getJob(job.id!))!;
}

beforeAll(async () => {
  queue = new Queue(QUEUE, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX, defaultJobOptions: ingestJobOptions(env.config) });
  workers = await startWorkers(env.config, silentLogger, { kinds: ['transactions'], maintenance: false });
});
afterAll(async () => {
  await workers?.close();
  await queue?.close();
});

describe('a job whose payload can never succeed', () => {
  it('fails on its first attempt although five are allowed, and is kept with its reason', async () => {
    const job = await settled(await queue.add('chunk', { kind: 'transactions', source: 'x', rows: 'not a list' }));
    expect(await queue.getJobState(job.id!)).toBe('failed');
    expect(job.opts.attempts).toBe(5);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/^invalid ingest-transactions payload/);
    const metrics = await workers.metrics.registry.metrics();
    expect(sampleValue(metrics, 'soulgraph_job_failures_total', { queue: QUEUE, final: 'true' })).toBe(1);
  });
});

describe('soulgraph retry', () => {
  it('lists the failed jobs with their reasons when neither --all nor --job is given', async () => {
    const { code, output } = await runSoulgraph(['retry', '--queue', QUEUE], env.env);
    expect(code).toBe(2);
    expect(output).toMatch(/ingest-transactions has 1 failed jobs/);
    expect(output).toMatch(/after 1 attempts: invalid ingest-transactions payload/);
    expect(output).toContain('retry them with --all');
  });

  it('refuses an unknown queue, naming the queues', async () => {
    const { code, output } = await runCliInProcess(['retry', '--queue', 'ingest-tweets', '--all'], env.env);
    expect(code).toBe(2);
    expect(output).toContain('unknown queue "ingest-tweets"; queues are ingest-profiles');
  });

  it('re-runs a job that failed while ClickHouse refused it, once the cause is fixed, with all its attempts again', async () => {
    // The cause: the table is gone for a while (an operator's mistake, a restore in progress).
    await env.ch.command(sql`RENAME TABLE transactions TO transactions_away`);
    let failed: Job;
    try {
      failed = await settled(await queue.add('chunk', chunk([transaction(1), transaction(2)]), { attempts: 2, backoff: { type: 'fixed', delay: 10 } }));
    } finally {
      await env.ch.command(sql`RENAME TABLE transactions_away TO transactions`);
    }
    expect(await queue.getJobState(failed.id!)).toBe('failed');
    expect(failed.attemptsMade).toBe(2);
    expect(failed.failedReason).toMatch(/transactions/);

    const { code, output } = await runSoulgraph(['retry', '--queue', QUEUE, '--job', failed.id!], env.env);
    expect(code, output).toBe(0);
    expect(output).toContain(`retried 1 failed job of ${QUEUE}`);
    const done = await settled(failed);
    expect(await queue.getJobState(done.id!)).toBe('completed');
    expect(done.attemptsMade).toBe(1);
    expect(await logicalRows(env, 'transactions')).toBe(2);
  });

  it('retries every failed job with --all', async () => {
    const [before] = await queue.getFailed(0, 0);
    const { code, output } = await runSoulgraph(['retry', '--queue', QUEUE, '--all'], env.env);
    expect(code, output).toBe(0);
    expect(output).toContain(`retried 1 failed job of ${QUEUE}`);
    // The bad payload ran again, and failed again at once.
    await waitFor(async () => ((await queue.getJob(before!.id!))?.finishedOn ?? 0) > before!.finishedOn!, 30_000, 'the bad job to run again');
    const again = (await queue.getJob(before!.id!))!;
    expect(await again.getState()).toBe('failed');
    expect(again.attemptsMade).toBe(1);
  });
});
