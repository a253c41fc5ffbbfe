/**
 * Requests a client controls but the API cannot take still get the envelope, with a
 * request id and a 4xx status: a body in a charset or encoding it does not read, requests
 * Node's HTTP parser refuses before Express sees them, and methods /docs does not serve.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useApi } from '../support/api-harness.ts';
import { rawRequest, type RawAnswer } from '../support/raw-http-request.ts';

const api = useApi();
let apiKey: string;
beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
});

/** The answer to raw bytes, which the server closes after (a refused request, or Connection: close). */
async function rawAnswer(bytes: string | Buffer): Promise<RawAnswer> {
  const answer = await rawRequest(api.url, bytes, true);
  if (!answer) throw new Error('the server closed the connection without an answer');
  return answer;
}

function expectEnvelope(answer: { status: number; body: unknown; requestId: string | null | undefined }, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ code, data: null });
  expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
}

describe('a body the API cannot read', () => {
  it.each([
    ['a charset it does not know', { 'Content-Type': 'application/json; charset=bogus' }],
    ['a charset other than UTF-8', { 'Content-Type': 'application/json; charset=latin1' }],
    ['an unknown Content-Encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'bogus' }],
  ])('answers 415 and 10415 for %s', async (_what, headers) => {
    const { status, body, headers: answered } = await api.call('/api/v1/auth', { apiKey, method: 'POST', headers, body: '{}' });
    expectEnvelope({ status, body, requestId: answered.get('x-request-id') }, 415, '10415');
  });
});

describe('a request Node\'s HTTP parser refuses', () => {
  it.each([
    ['a 100 KB URL', `GET /api/v1/recommend?x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, '10431'],
    ['headers over 16 KB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, '10431'],
    ['an unknown method', 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, '10400'],
    ['raw UTF-8 in the path', Buffer.from('GET /api/v1/ré HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'), 400, '10400'],
    ['a malformed request line', 'NOT A REQUEST\r\n\r\n', 400, '10400'],
  ] as const)('answers the envelope with a request id for %s', async (_what, request, status, code) => {
    const answer = await rawAnswer(request);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expectEnvelope({ status: answer.status, body: JSON.parse(answer.body), requestId: answer.headers.get('x-request-id') }, status, code);
  });
});

describe('/docs', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and the methods it serves', async (method) => {
    const { status, body, headers } = await api.call('/docs/', { method });
    expectEnvelope({ status, body, requestId: headers.get('x-request-id') }, 405, '10405');
    expect(headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers TRACE with 405 too', async () => {
    const answer = await rawAnswer('TRACE /docs/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(405);
    expect(JSON.parse(answer.body)).toMatchObject({ code: '10405' });
  });

  it('still serves the reference on GET', async () => {
    const { status, headers } = await api.call('/docs/');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/text\/html/);
  });
});
