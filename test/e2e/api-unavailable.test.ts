/**
 * When ClickHouse cannot be reached, the API still answers in its envelope: 503 with
 * 10503 (retry later), never a hung request or an HTML error page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../../api/server/server.ts';
import { parseConfig } from '../../shared/config.ts';
import { freePort } from '../../shared/local-stack/free-port.ts';
import { silentLogger } from '../support/pipeline-harness.ts';
import { testEnvironmentVariables } from '../support/test-environment.ts';

let api: RunningApi;
let url: string;

beforeAll(async () => {
  // A port nothing listens on: every ClickHouse request is refused.
  const env = testEnvironmentVariables({ CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}`, CURSOR_SECRET: 'y'.repeat(40) });
  api = await startApi(parseConfig(env), silentLogger, 0);
  url = `http://127.0.0.1:${api.port}`;
});
afterAll(async () => api?.close());

describe('the API without ClickHouse', () => {
  it('answers /readyz with 503 and 10503, naming what is unreachable', async () => {
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ code: '10503', desc: 'service unavailable: ClickHouse unreachable', data: null });
  });

  it('answers an API call with 503 and 10503', async () => {
    const response = await fetch(`${url}/api/v1/sbt/list?address=0x${'1'.repeat(40)}`, { headers: { ApiKey: `sg_${'a'.repeat(12)}_${'B'.repeat(32)}` } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('10503');
  });

  it('still answers /healthz: the process itself is up', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
