/**
 * The workers' HTTP server: /metrics moves when jobs run (rows per kind, job durations,
 * failures, queue depths), carries the age of the newest ready snapshot and the chain head
 * lag, and /readyz turns false when a shutdown starts.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../shared/metrics/metrics-registry.ts';
import { allQueueNames, ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { chainHeadLag } from '../../pipeline/metrics/chain-head-lag.ts';
import { createPipelineMetrics } from '../../pipeline/metrics/pipeline-metrics.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { serveWorkersHttp, type WorkersHttpServer } from '../../pipeline/workers-http-server.ts';
import { waitFor } from '../support/child-process.ts';
import { materializeNow, silentLogger } from '../support/pipeline-harness.ts';
import { describedMetrics, sampleValue } from '../support/prometheus-text.ts';

import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let workers: RunningWorkers;
let http: WorkersHttpServer;
const get = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${http.port}${path}`, init);
const scrape = async () => {
  const response = await get('/metrics');
  expect(response.status).toBe(200);
  return response.text();
};

beforeAll(async () => {
  workers = await startWorkers(env.config, silentLogger, { kinds: ['follows'], maintenance: false, metrics: createPipelineMetrics(createMetricsRegistry()) });
  http = await serveWorkersHttp(env.config, silentLogger, workers);
});
afterAll(async () => {
  await workers?.close();
  await http?.close();
});

describe("the workers' /metrics", () => {
  it('describes every series the issue names, before any job ran', async () => {
    expect(describedMetrics(await scrape())).toEqual(
      expect.arrayContaining([
        'soulgraph_queue_jobs',
        'soulgraph_job_duration_seconds',
        'soulgraph_job_failures_total',
        'soulgraph_rows_ingested_total',
        'soulgraph_chain_head_lag_blocks',
        'soulgraph_snapshot_age_seconds',
        'soulgraph_clickhouse_node_up',
        'soulgraph_clickhouse_replication_behind',
        'process_resident_memory_bytes',
      ]),
    );
  });

  it('reports no ClickHouse cluster nodes on one server (local-cluster.test.ts scrapes a cluster)', async () => {
    const text = await scrape();
    expect(text).not.toMatch(/^soulgraph_clickhouse_node_up\{/m);
    expect(text).not.toMatch(/^soulgraph_clickhouse_replication_behind\{/m);
  });

  it('reports the depth of every queue of the pipeline, by state', async () => {
    const text = await scrape();
    for (const queue of allQueueNames()) {
      expect(text, queue).toContain(`soulgraph_queue_jobs{queue="${queue}",state="waiting"}`);
    }
    const queue = new Queue(ingestQueueName('nft-transfers'), { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
    await queue.add('chunk', { kind: 'nft-transfers', source: 'x', format: 'canonical', text: '', firstLine: 1 });
    await queue.add('chunk', { kind: 'nft-transfers', source: 'y', format: 'canonical', text: '', firstLine: 1 });
    await queue.close();
    // No worker serves nft-transfers here: both wait.
    expect(sampleValue(await scrape(), 'soulgraph_queue_jobs', { queue: ingestQueueName('nft-transfers'), state: 'waiting' })).toBe(2);
  });

  it('counts rows per kind and outcome, times each job, and counts a payload that can never pass as a final failure', async () => {
    const queueName = ingestQueueName('follows');
    const before = await scrape();
    const queue = new Queue(queueName, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
    const row = JSON.stringify({ followerProfileId: 'p_x', followeeProfileId: 'p_y', followedAt: '2024-02-01T00:00:00Z' });
    await queue.add('chunk', { kind: 'follows', source: 'metrics', format: 'canonical', text: `${row}\n{}`, firstLine: 1 });
    await queue.add('chunk', { kind: 'follows', rows: 'never valid' });
    await waitFor(async () => {
      const counts = await queue.getJobCounts('completed', 'failed');
      return counts.completed === 1 && counts.failed === 1;
    }, 30_000, 'both jobs to finish');
    await queue.close();
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta('soulgraph_rows_ingested_total', { kind: 'follows', outcome: 'accepted' })).toBe(1);
    expect(delta('soulgraph_rows_ingested_total', { kind: 'follows', outcome: 'rejected' })).toBe(1);
    expect(delta('soulgraph_job_duration_seconds_count', { queue: queueName })).toBe(1);
    expect(delta('soulgraph_job_failures_total', { queue: queueName, final: 'true' })).toBe(1);
    expect(sampleValue(after, 'soulgraph_job_duration_seconds_sum', { queue: queueName })).toBeGreaterThan(0);
  });

  it('gives the age of the newest ready snapshot: +Inf before the first, seconds after', async () => {
    expect(sampleValue(await scrape(), 'soulgraph_snapshot_age_seconds')).toBe(Infinity);
    await materializeNow(env);
    const age = sampleValue(await scrape(), 'soulgraph_snapshot_age_seconds');
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
  });

  it('shows the chain head lag the chain worker reports, per chain', async () => {
    const lag = chainHeadLag(workers.metrics.registry);
    lag.set(1, 12);
    chainHeadLag(workers.metrics.registry).set(137, 3);
    const text = await scrape();
    expect(sampleValue(text, 'soulgraph_chain_head_lag_blocks', { chain_id: '1' })).toBe(12);
    expect(sampleValue(text, 'soulgraph_chain_head_lag_blocks', { chain_id: '137' })).toBe(3);
  });
});

describe("the workers' health endpoints", () => {
  it('answers /healthz, and /readyz until the shutdown begins', async () => {
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    expect((await get('/metrics', { method: 'POST' })).status).toBe(405);
    http.markDraining();
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'shutting down' });
    expect((await get('/healthz')).status).toBe(200);
  });
});
