/** The logger redacts credentials wherever the usual names carry them. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ LOG_LEVEL: 'trace' }, 'test', { destination }) };
}

describe('createLogger', () => {
  it.each([
    ['an ApiKey', { apiKey: 'sg_x', ApiKey: 'sg_y', caller: { apiKey: 'sg_z' } }],
    ['tokens and authorization headers', { token: 't', req: { headers: { authorization: 'Bearer t', apikey: 'k', 'i-authorization': 'Bearer a', cookie: 'c' } } }],
    ['signatures', { signature: '0xabc', sig: '0xdef', body: { signature: '0x123' } }],
    ['secrets and passwords', { secret: 's', password: 'p', privateKey: 'k', user: { password: 'q' } }],
    ['secret settings, should a config be logged', { config: { CLICKHOUSE_PASSWORD: 'pw', API_SIGNING_KEYS: '[{"d":"x"}]', CURSOR_SECRET: 'c', ADMIN_PASSWORD: 'a', METRICS_TOKEN: 'm', REDIS_URL: 'redis://:pw@h' } }],
  ])('redacts %s', (_what, object) => {
    const { lines, logger } = capture();
    logger.info(object, 'something');
    logger.flush();
    const text = JSON.stringify(lines);
    expect(lines).toHaveLength(1);
    for (const value of leaves(object)) expect(text, value).not.toContain(JSON.stringify(value));
    expect(text).toContain('[redacted]');
  });

  it('keeps what is not a credential', () => {
    const { lines, logger } = capture();
    logger.info({ requestId: 'r-1', apiKeyId: '0123456789ab', path: '/api/v1/recommend', jobId: '42' }, 'request');
    expect(lines[0]).toMatchObject({ requestId: 'r-1', apiKeyId: '0123456789ab', path: '/api/v1/recommend', jobId: '42', msg: 'request' });
  });
});

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}
