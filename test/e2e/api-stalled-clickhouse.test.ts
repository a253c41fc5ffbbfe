/**
 * A ClickHouse that stops answering (SIGSTOP: the connection stays open, no reply comes)
 * holds no request longer than API_CLICKHOUSE_TIMEOUT_MS, and /readyz no longer than its
 * one-second probe: both answer 503 with 10503, and the API serves again when ClickHouse
 * resumes. A ClickHouse of this file's own, since stopping the shared one would stall every
 * other test file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouse } from '../../shared/local-stack/clickhouse-server.ts';
import type { RunningService } from '../../shared/local-stack/running-service.ts';
import * as world from '../fixtures/small-world.ts';
import { whileStopped } from '../support/stopped-process.ts';
import { useApi } from '../support/api-harness.ts';
import { ingestRecords } from '../support/pipeline-harness.ts';

let clickhouse: RunningService;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-stalled-clickhouse-'));
  clickhouse = await startClickHouse({ dir });
});
afterAll(async () => {
  await clickhouse?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
const TIMEOUT_MS = 1_000;
const api = useApi({ ...world.SMALL_WORLD_SETTINGS, API_CLICKHOUSE_TIMEOUT_MS: String(TIMEOUT_MS) }, { late: () => ({ CLICKHOUSE_URL: clickhouse.url }) });

let apiKey: string;
beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
  await ingestRecords(api, world.records);
});

/** Rejects after `ms`: an API that waits for ClickHouse to resume would otherwise keep it stopped forever. */
function within<T>(ms: number, answers: Promise<T>): Promise<T> {
  return Promise.race([answers, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

async function timed(call: Promise<{ status: number; body: any }>): Promise<{ status: number; body: any; seconds: number }> {
  const started = performance.now();
  const answer = await call;
  return { ...answer, seconds: (performance.now() - started) / 1000 };
}

describe('the API with a stalled ClickHouse', () => {
  it('answers /readyz and every SBT list with 503 and 10503 in seconds, not when ClickHouse resumes, then serves again', async () => {
    const sbts = () => api.call(`/api/v1/sbt/list?address=${world.addressOf('me-1')}`, { apiKey });
    expect((await sbts()).status).toBe(200);
    expect((await api.call('/readyz')).status).toBe(200);

    // Ten times as many requests as the ClickHouse client has connections (10): those queued
    // for one answer by the deadline too, not a timeout later for each batch ahead of them.
    const answers = await whileStopped(clickhouse.pid, () => within(20_000, Promise.all([timed(api.call('/readyz')), ...Array.from({ length: 100 }, () => timed(sbts()))])));
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ code: '10503', data: null });
      // The old 10 s timeout would be well past this; the margin is for a loaded machine.
      expect(answer.seconds).toBeLessThan(5);
    }

    expect((await api.call('/readyz')).status).toBe(200);
    expect((await sbts()).status).toBe(200);
  }, 60_000);
});
