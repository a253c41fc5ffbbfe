/**
 * The queue dashboard (Bull Board on the scheduler's admin port): it answers only with the
 * admin credential, shows every queue with failed jobs' errors and payloads, serves its
 * own static files, retries and cleans; and it is closed when no password is configured.
 */
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { CHAIN_QUEUE, allQueueNames, ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { DASHBOARD_PATH, startAdminServer, type AdminServer } from '../../pipeline/admin/admin-server.ts';
import { waitFor } from '../support/child-process.ts';
import { silentLogger } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const PASSWORD = 'correct horse battery staple';
const env = useTestEnvironment({ ADMIN_USER: 'ops', ADMIN_PASSWORD: PASSWORD });
const QUEUE = ingestQueueName('sbt-mints');
let admin: AdminServer;
let queue: Queue;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const asAdmin = { Authorization: basic('ops', PASSWORD) };
const dashboard = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${admin.port}${DASHBOARD_PATH}${path}`, init);

/** A job moved to failed the way a worker does after its last attempt. */
async function addFailedJob(jobId: string, reason: string): Promise<void> {
  await queue.add('chunk', { kind: 'sbt-mints', source: 'dashboard.test', rows: ['{"broken": true}'] }, { jobId, lifo: true });
  const worker = new Worker(QUEUE, null, { connection: redisConnection(env.config, 'worker'), prefix: env.config.QUEUE_PREFIX, autorun: false });
  try {
    const token = 'dashboard-test';
    const job = await worker.getNextJob(token);
    expect(job?.id).toBe(jobId);
    await job!.moveToFailed(new Error(reason), token);
  } finally {
    await worker.close();
  }
}

beforeAll(async () => {
  admin = await startAdminServer(env.config, silentLogger, 0);
  queue = new Queue(QUEUE, { connection: redisConnection(env.config, 'producer'), prefix: env.config.QUEUE_PREFIX });
  await addFailedJob('failed-one', 'invalid ingest-sbt-mints payload: rows[0]: owner missing');
  await queue.add('chunk', { kind: 'sbt-mints', source: 'waiting.test', rows: [] }, { jobId: 'waiting-one' });
});
afterAll(async () => {
  await queue?.close();
  await admin?.close();
});

describe('the queue dashboard', () => {
  it('answers 401 with a Basic challenge without the credential, or with a wrong one', async () => {
    for (const headers of <Record<string, string>[]>[{}, { Authorization: basic('ops', 'wrong password, long enough') }, { Authorization: basic('admin', PASSWORD) }, { Authorization: 'Bearer ' + PASSWORD }]) {
      for (const path of ['/', '/api/queues', `/api/queues/${QUEUE}/failed-one`]) {
        const response = await dashboard(path, { headers });
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="soulgraph admin"/);
        expect(await response.text()).not.toContain('sbt-mints');
      }
    }
  });

  it('serves its page and every script and stylesheet it links, from this server', async () => {
    const page = await dashboard('/', { headers: asAdmin });
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset, 'no CDN').not.toMatch(/^https?:/);
      const response = await fetch(new URL(asset, `http://127.0.0.1:${admin.port}${DASHBOARD_PATH}/`), { headers: asAdmin });
      expect(response.status, asset).toBe(200);
    }
  });

  it('lists every queue of the pipeline (the chain queue only with CHAINS set), and a failed job with its error and payload', async () => {
    const response = await dashboard(`/api/queues?activeQueue=${QUEUE}&status=failed&page=1&jobsPerPage=10`, { headers: asAdmin });
    expect(response.status).toBe(200);
    const { queues } = (await response.json()) as { queues: { name: string; counts: Record<string, number>; jobs: { id: string; failedReason: string; data: unknown }[] }[] };
    expect(queues.map((q) => q.name).sort()).toEqual(allQueueNames().filter((name) => name !== CHAIN_QUEUE).sort());
    const mints = queues.find((q) => q.name === QUEUE)!;
    expect(mints.counts).toMatchObject({ failed: 1, waiting: 1 });
    expect(mints.jobs).toEqual([
      expect.objectContaining({ id: 'failed-one', failedReason: 'invalid ingest-sbt-mints payload: rows[0]: owner missing', data: expect.objectContaining({ source: 'dashboard.test' }) }),
    ]);
  });

  it('shows the chain queue where CHAINS configures a chain', async () => {
    const chains = parseConfig({ ...env.env, ADMIN_USER: 'ops', ADMIN_PASSWORD: PASSWORD, CHAINS: '[{"id":31337,"rpcUrls":["http://127.0.0.1:9"]}]' });
    const withChain = await startAdminServer(chains, silentLogger, 0);
    try {
      const response = await fetch(`http://127.0.0.1:${withChain.port}${DASHBOARD_PATH}/api/queues`, { headers: asAdmin });
      const { queues } = (await response.json()) as { queues: { name: string }[] };
      expect(queues.map((q) => q.name)).toContain(CHAIN_QUEUE);
    } finally {
      await withChain.close();
    }
  });

  it('refuses a change requested from another origin (a hostile page using the browser’s credential)', async () => {
    const response = await dashboard(`/api/queues/${QUEUE}/failed-one/retry`, { method: 'PUT', headers: { ...asAdmin, Origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    expect(await queue.getJobState('failed-one')).toBe('failed');
  });

  it('retries a failed job', async () => {
    const response = await dashboard(`/api/queues/${QUEUE}/failed-one/retry`, { method: 'PUT', headers: { ...asAdmin, Origin: `http://127.0.0.1:${admin.port}` } });
    expect(response.status).toBe(204);
    await waitFor(async () => (await queue.getJobState('failed-one')) === 'waiting', 5_000, 'the job to wait again');
  });

  it('cleans (removes) a failed job', async () => {
    await addFailedJob('failed-two', 'something else went wrong');
    expect(await queue.getJobState('failed-two')).toBe('failed');
    const response = await dashboard(`/api/queues/${QUEUE}/failed-two/clean`, { method: 'PUT', headers: asAdmin });
    expect(response.status).toBe(204);
    expect(await queue.getJob('failed-two')).toBeUndefined();
  });
});

describe('the queue dashboard without ADMIN_PASSWORD', () => {
  let closed: AdminServer;
  beforeAll(async () => {
    closed = await startAdminServer(parseConfig({ ...env.env, ADMIN_PASSWORD: '' }), silentLogger, 0);
  });
  afterAll(async () => closed?.close());

  it('is closed: every request answers 403, whatever credential it carries', async () => {
    for (const headers of <Record<string, string>[]>[{}, { Authorization: basic('admin', '') }, asAdmin]) {
      const response = await fetch(`http://127.0.0.1:${closed.port}${DASHBOARD_PATH}/api/queues`, { headers });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('set ADMIN_PASSWORD');
    }
    expect((await fetch(`http://127.0.0.1:${closed.port}/healthz`)).status).toBe(200);
  });
});
