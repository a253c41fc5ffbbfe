/**
 * Logs never contain an ApiKey, a token or a signature: the real API and workers processes
 * run at LOG_LEVEL=trace through a whole session (sign-in with a wallet signature, tokens,
 * recommendations with cursors, bad keys and tokens, a scrape with a wrong metrics token),
 * then their captured output is searched for every secret the session used.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSiweMessage } from 'viem/siwe';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileIdForAddress } from '../../api/auth/auth.ts';
import { exitOf, runSoulgraph, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { apiKeyIn } from '../support/api-harness.ts';

const METRICS_TOKEN = 'metrics-token-ThatMustNotBeLogged';
const env = useTestEnvironment({ LOG_LEVEL: 'trace', METRICS_TOKEN, CURSOR_SECRET: 'cursor-secret-ThatMustNotBeLogged-0123456789', APIKEY_CACHE_SECONDS: '1' });
const API_SERVER = fileURLToPath(new URL('../../api/server/server.ts', import.meta.url));
const DOMAIN = 'app.acme.xyz';

const secrets: { name: string; value: string }[] = [];
let apiOutput = () => '';
let api: ReturnType<typeof spawn>;
let workers: ReturnType<typeof spawnSoulgraph>;
let base = '';

async function call(path: string, init: RequestInit & { apiKey?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.apiKey) headers.set('ApiKey', init.apiKey);
  const response = await fetch(`${base}${path}`, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

beforeAll(async () => {
  workers = spawnSoulgraph(['workers', '--kinds', 'profiles,invites'], env.env);
  api = spawn(process.execPath, ['--import', 'tsx', API_SERVER], { env: { ...process.env, ...env.env, API_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  api.stdout!.on('data', (d) => (output += d));
  api.stderr!.on('data', (d) => (output += d));
  apiOutput = () => output;
  // A start that fails says what the API printed (it logs no secrets: what this file checks).
  await waitFor(async () => /"port":(\d+)[^\n]*"api listening"/.test(output), 60_000, 'the API to listen').catch((error: Error) => {
    throw new Error(`${error.message}; it printed:\n${output}`);
  });
  base = `http://127.0.0.1:${/"port":(\d+)[^\n]*"api listening"/.exec(output)![1]}`;
}, 90_000);

afterAll(async () => {
  api?.kill('SIGTERM');
  workers?.kill('SIGTERM');
  await Promise.all([api && exitOf(api), workers && exitOf(workers)]);
});

describe('a whole API session, logged at trace level', () => {
  it('runs: sign-in, tokens, recommendations, SBTs, and every kind of bad credential', async () => {
    const created = await runSoulgraph(['apikey', 'create', '--name', 'acme', '--domain', DOMAIN], env.env);
    const apiKey = apiKeyIn(created.output)!;
    // Everything after sg_<keyId>_: the secret is base64url, '_' included, so splitting on '_'
    // could leave a fragment short enough (or empty) to be found in any log by chance.
    const secretPart = apiKey.replace(/^sg_[0-9a-f]{12}_/, '');
    expect(secretPart).toHaveLength(32);
    secrets.push({ name: 'ApiKey', value: apiKey }, { name: 'ApiKey secret part', value: secretPart });
    await waitFor(async () => (await call('/api/v1/auth/nonce', { apiKey })).status === 200, 10_000, 'the new key');

    const wallet = privateKeyToAccount(generatePrivateKey());
    const { body: nonce } = await call('/api/v1/auth/nonce', { apiKey });
    const message = createSiweMessage({
      domain: DOMAIN,
      address: wallet.address,
      uri: `https://${DOMAIN}/login`,
      version: '1',
      chainId: 1,
      nonce: nonce.data.nonce,
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 5 * 60_000),
    });
    const signature = await wallet.signMessage({ message });
    secrets.push({ name: 'SIWE signature', value: signature.slice(2) });
    const addressToken = await call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: JSON.stringify({ message, signature }) });
    expect(addressToken.body.code).toBe('0');
    secrets.push({ name: 'address token', value: addressToken.body.data.token });
    // The same signature again (nonce used): refused, with the signature in the body.
    expect((await call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: JSON.stringify({ message, signature }) })).body.code).toBe('10105');

    const unified = await call('/api/v1/auth', {
      apiKey,
      method: 'POST',
      headers: { 'I-Authorization': `Bearer ${addressToken.body.data.token}`, 'X-Request-Id': 'log-secrets-auth' },
      body: '{}',
    });
    expect(unified.body.code).toBe('0');
    const token = unified.body.data.token as string;
    secrets.push({ name: 'unified token', value: token }, { name: 'unified token signature', value: token.split('.')[2]! });

    // The profile reaches ClickHouse through the workers (a job with its own log lines).
    const me = profileIdForAddress(wallet.address.toLowerCase());
    await waitFor(async () => workers.output().includes('"job completed"'), 30_000, 'the profile job');

    expect((await call('/api/v1/recommend?limit=5', { apiKey, headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await call('/api/v1/sbt/list?address=' + wallet.address.toLowerCase() + '&sig=0xdeadbeefSIGNATUREinQUERY', { apiKey })).status).toBe(400);
    secrets.push({ name: 'signature in a query string', value: 'deadbeefSIGNATUREinQUERY' });

    // Wrong credentials of every kind, each of which carries a secret-looking value.
    const wrongKey = `sg_${'a'.repeat(12)}_WRONGKEYwrongKEYwrongKEYwrongKEY`;
    secrets.push({ name: 'wrong ApiKey', value: 'WRONGKEYwrongKEYwrongKEYwrongKEY' });
    expect((await call('/api/v1/auth/nonce', { apiKey: wrongKey })).body.code).toBe('10121');
    const forged = `${token.split('.').slice(0, 2).join('.')}.FORGEDsignatureFORGEDsignature`;
    secrets.push({ name: 'forged token signature', value: 'FORGEDsignatureFORGEDsignature' });
    expect((await call('/api/v1/recommend', { apiKey, headers: { Authorization: `Bearer ${forged}` } })).body.code).toBe('10101');
    expect((await call('/api/v1/auth', { apiKey, method: 'POST', headers: { 'I-Authorization': `Bearer ${forged}` }, body: '{}' })).status).toBe(401);
    expect((await call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: '{"message": "x", "signature": "0xBADJSON' })).body.code).toBe('10201');
    expect((await call('/metrics', { headers: { Authorization: 'Bearer not-the-metrics-token-SECRETGUESS' } })).status).toBe(401);
    secrets.push({ name: 'guessed metrics token', value: 'SECRETGUESS' }, { name: 'metrics token', value: METRICS_TOKEN });
    expect((await call('/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    expect(me).toMatch(/^p_/);
  });

  it('left logs with request ids and job ids, and none of the secrets it used', async () => {
    // The API writes a request's line after it answers, and its stdout reaches us through a pipe: the last line can lag the last answer.
    const requestLines = () => apiOutput().split('\n').filter((l) => l.includes('"msg":"request"')).length;
    await waitFor(async () => requestLines() >= 12, 10_000, 'the last request lines').catch(() => {});
    const logs = `${apiOutput()}\n${workers.output()}`;
    const lines = logs.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    // Not vacuous: one line per request, with ids, and the workers' job lines.
    expect(lines.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(12);
    expect(lines.find((l) => l.requestId === 'log-secrets-auth')).toMatchObject({ path: '/api/v1/auth', status: 200, code: '0' });
    expect(lines.find((l) => l.msg === 'job completed')).toMatchObject({ queue: 'ingest-profiles', jobId: expect.any(String) });
    expect(secrets.length).toBe(11);
    for (const { name, value } of secrets) expect(logs.includes(value), `${name} appears in the logs`).toBe(false);
    expect(logs).not.toContain('cursor-secret-ThatMustNotBeLogged');
  });
});
