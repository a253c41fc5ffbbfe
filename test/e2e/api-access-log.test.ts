/** Every request leaves one JSON log line with its request id, and no secret in it. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../../api/server/server.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment({ CURSOR_SECRET: 'z'.repeat(40) });
const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
let api: RunningApi;

beforeAll(async () => {
  api = await startApi(env.config, pino({ level: 'info' }, capture), 0);
});
afterAll(async () => api?.close());

describe('access log', () => {
  it('logs method, path, status, code and the request id, never the ApiKey or a signature', async () => {
    const key = `sg_${'c'.repeat(12)}_${'SECRETKEYSECRETKEYSECRETKEY12345'}`;
    const response = await fetch(`http://127.0.0.1:${api.port}/api/v1/sbt/list?address=0x${'1'.repeat(40)}&sig=0xSECRETSIG`, {
      headers: { ApiKey: key, 'X-Request-Id': 'req-access-log-1' },
    });
    expect(response.headers.get('x-request-id')).toBe('req-access-log-1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === 'req-access-log-1');
    expect(entry).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/sbt/list', status: 401, code: '10121' });
    expect(typeof entry.ms).toBe('number');
    const all = lines.join('\n');
    expect(all).not.toContain('SECRETKEY');
    expect(all).not.toContain('SECRETSIG');
  });
});
