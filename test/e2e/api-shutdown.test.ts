/**
 * The API on SIGTERM (what `api.close()` runs): readiness turns false first while it keeps
 * serving for API_DRAIN_SECONDS, then it stops accepting connections, answers the request
 * still in flight, and closes.
 */
import { request, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startApi } from '../../api/server/server.ts';
import { mintApiKey, type ApiKeyRow } from '../../shared/api-keys.ts';
import { parseConfig } from '../../shared/config.ts';
import { waitFor } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment({ API_DRAIN_SECONDS: '1', CURSOR_SECRET: 's'.repeat(40) });

describe('the API shutting down', () => {
  it('turns not ready, keeps serving through the drain, stops accepting, and answers the request in flight', async () => {
    const key = mintApiKey();
    const now = Math.floor(Date.now() / 1000);
    await env.ch.insert('api_keys', [
      { key_id: key.keyId, key_hash: key.keyHash, name: 't', domains: ['app.example'], rate_limit_per_minute: 0, created_at: now, revoked_at: null, updated_at: now } satisfies ApiKeyRow,
    ]);
    const api = await startApi(parseConfig(env.env), pino({ level: 'silent' }), 0);
    const url = (path: string) => `http://127.0.0.1:${api.port}${path}`;
    expect((await fetch(url('/readyz'))).status).toBe(200);

    // A request whose body is still arriving when the shutdown begins.
    const body = JSON.stringify({ message: 'not a SIWE message', signature: '0x00' });
    const inFlight = request(url('/api/v1/auth/address-token'), {
      method: 'POST',
      headers: { ApiKey: key.key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on('response', (response: IncomingMessage) => {
        let text = '';
        response.on('data', (d) => (text += d));
        response.on('end', () => resolve({ status: response.statusCode!, text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, 10));
    await sleep(200);

    const closing = api.close();
    const ready = await fetch(url('/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ code: '10503', desc: 'service unavailable: shutting down', data: null });
    expect((await fetch(url('/healthz'))).status).toBe(200);

    // After the drain, new connections are refused ...
    await waitFor(async () => fetch(url('/healthz')).then(() => false, () => true), 5_000, 'new connections to be refused');
    // ... while the request in flight still gets its answer.
    inFlight.end(body.slice(10));
    const answer = await answered;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text)).toMatchObject({ code: '10104' });
    await closing;
  });
});
