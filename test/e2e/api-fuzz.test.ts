/**
 * Whatever a client sends, over a real socket: every route and method, query strings,
 * headers and bodies drawn at random (fast-check), malformed request lines and oversized
 * headers among them. The API answers each with a status below 500, and every refusal is
 * the envelope with a request id.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../api/common/endpoints.ts';
import { useApi } from '../support/api-harness.ts';
import { rawRequest } from '../support/raw-http-request.ts';

const api = useApi({ RATE_LIMIT_PER_MINUTE: '100000' });
let apiKey: string;
beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
});

const PATHS = [...new Set([...ENDPOINTS.map(([, path]) => path), '/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/.well-known/jwks.json', '/docs/', '/', '/api/v2/x'])];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'BREW', 'get', ''];

const queryValue = fc.oneof(fc.string(), fc.constantFrom('0x' + 'a'.repeat(40), '-1', '1e309', 'NaN', '%', '%zz', '\u0000', '9'.repeat(400)));
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'address', 'socialUsername', 'gamePlatformId', 'message', 'signature', 'x'), queryValue, { maxKeys: 3 });
const headerValue = fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), fc.constantFrom('application/json; charset=latin1', 'application/json; charset=bogus', 'gzip', 'bogus', 'Bearer x.y.z'));
const headers = fc.record(
  {
    ApiKey: fc.oneof(fc.constant('VALID'), fc.string({ unit: 'grapheme-ascii', maxLength: 60 })),
    Authorization: headerValue,
    'I-Authorization': headerValue,
    'Content-Type': headerValue,
    'Content-Encoding': headerValue,
    'X-Request-Id': headerValue,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(fc.constant(''), fc.json(), fc.string(), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')));

const request = fc.oneof(
  { weight: 9, arbitrary: fc.record({ method: fc.constantFrom(...METHODS), path: fc.constantFrom(...PATHS), query, headers, body, hugeHeader: fc.boolean() }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((garbage) => ({ garbage })) },
);

type Drawn = { garbage: string } | { method: string; path: string; query: Record<string, string>; headers: Partial<Record<string, string>>; body: string; hugeHeader: boolean };

function bytesOf(r: Drawn): Buffer {
  if ('garbage' in r) return Buffer.from(`${r.garbage}\r\n\r\n`, 'utf8');
  const search = new URLSearchParams(r.query).toString();
  const lines = [`${r.method} ${r.path}${search ? `?${search}` : ''} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value = ''] of Object.entries(r.headers)) {
    // A header value cannot hold a line break (the request would be another one).
    lines.push(`${name}: ${name === 'ApiKey' && value === 'VALID' ? apiKey : value.replace(/[\r\n]/g, ' ')}`);
  }
  if (r.hugeHeader) lines.push(`X-Padding: ${'p'.repeat(20_000)}`);
  const content = Buffer.from(r.body, 'latin1');
  lines.push(`Content-Length: ${content.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), content]);
}

describe('the API under random requests', () => {
  it('answers below 500, and every refusal is the envelope with a request id', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r: Drawn) => {
        // Garbage may happen to be a request that waits for more: the client says it has sent all.
        const answer = await rawRequest(api.url, bytesOf(r), 'garbage' in r);
        if (answer === undefined) {
          expect('garbage' in r, 'a well-formed request got no answer').toBe(true);
          return;
        }
        expect(answer.status, JSON.stringify(r).slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${JSON.stringify(r).slice(0, 300)} -> ${answer.body.slice(0, 200)}`).toBeLessThan(500);
        const head = !('garbage' in r) && r.method === 'HEAD';
        if (answer.status >= 400 && !head) {
          const envelope = JSON.parse(answer.body) as { code: unknown; desc: unknown; data: unknown };
          expect(typeof envelope.code).toBe('string');
          expect(envelope.code).not.toBe('0');
          expect(typeof envelope.desc).toBe('string');
          expect(envelope.data).toBeNull();
          expect(answer.headers.get('x-request-id')).toBeTruthy();
        }
      }),
      { numRuns: 400, seed: 20261126 },
    );
  }, 120_000);
});
