/** GET /metrics on the API: request rate, latency and errors per route and envelope code. */
import { beforeAll, describe, expect, it } from 'vitest';
import { useApi } from '../support/api-harness.ts';
import { describedMetrics, sampleValue, samples } from '../support/prometheus-text.ts';

const METRICS_TOKEN = 'metrics-token-for-the-test';
const api = useApi({ METRICS_TOKEN });
const REQUESTS = 'soulgraph_http_request_duration_seconds_count';
let apiKey: string;

async function scrape(): Promise<string> {
  const response = await api.call('/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body as string;
}

beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
});

describe('GET /metrics on the API', () => {
  it('answers only with the metrics token', async () => {
    expect((await api.call('/metrics')).status).toBe(401);
    expect((await api.call('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('describes the request histogram and the process metrics', async () => {
    const names = describedMetrics(await scrape());
    expect(names).toEqual(expect.arrayContaining(['soulgraph_http_request_duration_seconds', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds']));
  });

  it('counts each request once under its route, method and envelope code', async () => {
    const before = await scrape();
    const ok = { route: '/api/v1/sbt/list', method: 'GET', code: '11602' };
    const missingKey = { route: '/api/v1/sbt/list', method: 'GET', code: '10120' };
    for (let i = 0; i < 3; i++) {
      expect((await api.call(`/api/v1/sbt/list?address=0x${'7'.repeat(40)}`, { apiKey })).body.code).toBe('11602');
    }
    expect((await api.call(`/api/v1/sbt/list?address=0x${'7'.repeat(40)}`)).body.code).toBe('10120');
    await api.call('/healthz');
    const after = await scrape();
    expect(sampleValue(after, REQUESTS, ok) - sampleValue(before, REQUESTS, ok)).toBe(3);
    expect(sampleValue(after, REQUESTS, missingKey) - sampleValue(before, REQUESTS, missingKey)).toBe(1);
    const healthz = { route: '/healthz', method: 'GET', code: '0' };
    expect(sampleValue(after, REQUESTS, healthz) - sampleValue(before, REQUESTS, healthz)).toBe(1);
    // Latency: the sum of seconds grows with the requests, and every request lands in the +Inf bucket.
    expect(sampleValue(after, 'soulgraph_http_request_duration_seconds_sum', ok)).toBeGreaterThan(sampleValue(before, 'soulgraph_http_request_duration_seconds_sum', ok));
    expect(sampleValue(after, 'soulgraph_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(sampleValue(after, REQUESTS, ok));
  });

  it('never turns a raw URL into a label: unknown paths count as "unmatched"', async () => {
    const before = await scrape();
    for (const path of ['/wp-login.php', '/api/v1/users/0xabc?token=secret', '/api/v1/recommend/extra']) {
      expect((await api.call(path)).body.code).toBe('10404');
    }
    const after = await scrape();
    const unmatched = { route: 'unmatched', method: 'GET', code: '10404' };
    expect(sampleValue(after, REQUESTS, unmatched) - sampleValue(before, REQUESTS, unmatched)).toBe(3);
    const routes = new Set(samples(after).filter((s) => s.name === REQUESTS).map((s) => s.labels.route));
    const appRoutes = ['/healthz', '/readyz', '/metrics', '/.well-known/jwks.json', '/api/v1/openapi.json', '/api/v1/recommend', '/api/v1/auth', '/api/v1/auth/nonce', '/api/v1/auth/address-token', '/api/v1/sbt/list'];
    for (const route of routes) expect([...appRoutes, '/docs', 'unmatched']).toContain(route);
    expect(after).not.toContain('wp-login');
    expect(after).not.toContain('secret');
  });
});
