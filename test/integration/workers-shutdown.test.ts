/**
 * `soulgraph workers` on SIGTERM: readiness turns false first, the job in hand is finished
 * (its rows land, it completes rather than stalls), then the process exits 0.
 */
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { ingestJobOptions, ingestQueueName, type IngestJobPayload } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { logicalRows } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const ROWS = 100_000;

function bigChunk(): IngestJobPayload {
  const rows = Array.from({ length: ROWS }, (_, n) =>
    JSON.stringify({
      chainId: 1,
      hash: `0xb${n.toString(16).padStart(63, '0')}`,
      blockNumber: n,
      blockTime: 1_700_000_000 + n,
      from: `0x${(n % 997).toString(16).padStart(40, '3')}`,
      to: `0x${(n % 991).toString(16).padStart(40, '4')}`,
      value: String(n),
    }),
  );
  return { kind: 'transactions', source: 'shutdown.test', format: 'canonical', text: rows.join('\n'), firstLine: 1 };
}

describe('the workers process on SIGTERM', () => {
  it('turns not ready, finishes the job it holds, then exits 0', async () => {
    const child = spawnSoulgraph(['workers', '--kinds', 'transactions'], { ...env.env, LOG_LEVEL: 'info' });
    let port = 0;
    await waitFor(async () => {
      port = Number(/"port":(\d+)[^\n]*workers http server listening/.exec(child.output())?.[1] ?? 0);
      return port > 0;
    }, 30_000, 'the workers http server');
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    expect((await fetch(url('/readyz'))).status).toBe(200);

    const queue = new Queue(ingestQueueName('transactions'), {
      connection: redisConnection(env.config, 'producer'),
      prefix: env.config.QUEUE_PREFIX,
      defaultJobOptions: ingestJobOptions(env.config),
    });
    const job = await queue.add('chunk', bigChunk());
    await waitFor(async () => (await job.getState()) === 'active', 30_000, 'the job to start');

    // While it drains, the process answers but is not ready. The poll runs from before the
    // signal, back to back: started after it, it once missed a drain that CI's load made short.
    let sawNotReady = false;
    let draining = true;
    const poll = (async () => {
      while (draining && !sawNotReady && child.exitCode === null) {
        const ready = await fetch(url('/readyz')).catch(() => undefined);
        sawNotReady = ready?.status === 503 && (await fetch(url('/healthz')).then((r) => r.status, () => 0)) === 200;
      }
    })();
    child.kill('SIGTERM');
    await waitFor(async () => sawNotReady || child.exitCode !== null, 10_000, 'readiness to turn false');
    draining = false;
    await poll;
    expect(sawNotReady).toBe(true);

    expect(await exitOf(child)).toEqual({ code: 0, signal: null });
    expect(await queue.getJobState(job.id!)).toBe('completed');
    expect(await logicalRows(env, 'transactions')).toBe(ROWS);
    // The job was still in hand when the shutdown began (its first step turns readiness
    // false), and was finished during it: the process's own log tells the order, which a
    // poll of /readyz racing the job's last insert could not.
    const output = child.output();
    const shutdownBegan = output.indexOf('shutting down (SIGTERM)');
    const jobCompleted = output.search(/"jobId":"[^"]+"[^\n]*"job completed"|"msg":"job completed"[^\n]*"jobId"/);
    expect(shutdownBegan).toBeGreaterThanOrEqual(0);
    expect(jobCompleted).toBeGreaterThan(shutdownBegan);
    await queue.close();
  }, 120_000);
});
