/**
 * A running API for end-to-end tests: the real app on a free port over real HTTP, with
 * in-process pipeline workers so that what the API enqueues is written to ClickHouse.
 */
import type { Server } from 'node:http';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll } from 'vitest';
import { startApi, type RunningApi } from '../../api/server/server.ts';
import { loadSigningKeys } from '../../api/auth/signing-keys.ts';
import { issueUnifiedToken } from '../../api/auth/unified-token.ts';
import { generateSigningKeyJwk, type PrivateEcJwk } from '../../shared/signing-key-jwk.ts';
import { parseConfig } from '../../shared/config.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { runCliInProcess } from './cli-in-process.ts';
import { silentLogger } from './pipeline-harness.ts';
import { useTestEnvironment, type TestEnvironment, type TestEnvironmentOptions } from './test-environment.ts';

export interface ApiHarness extends TestEnvironment {
  url: string;
  /** The running API's HTTP server (api/server/http-server.ts), the app its request listener. */
  server: Server;
  signingJwk: PrivateEcJwk;
  /** `fetch` against the API; returns status, headers and the parsed body. */
  call(path: string, init?: RequestInit & { apiKey?: string }): Promise<{ status: number; headers: Headers; body: any }>;
  /** A new ApiKey made by the CLI's own code (`soulgraph apikey create`, in this process), once the API accepts it. */
  createApiKey(args?: string[]): Promise<{ key: string; keyId: string }>;
  /** A unified token for a profile, signed with the API's key (for profiles whose wallets the test does not hold). */
  unifiedTokenFor(profileId: string, address: string): Promise<string>;
  /** The first half of a sign-in (nonce, SIWE message, /auth/address-token): the address token. */
  addressToken(apiKey: string, account: PrivateKeyAccount, domain?: string): Promise<string>;
  /** Signs a wallet in as an app would (nonce, SIWE, address token, /auth); returns the unified token. */
  signInWallet(apiKey: string, account: PrivateKeyAccount, domain?: string): Promise<string>;
}

export function useApi(overrides: Record<string, string> = {}, options: TestEnvironmentOptions = {}): ApiHarness {
  const holder = {} as { jwk: PrivateEcJwk; env: TestEnvironment };
  // Generated synchronously-enough: beforeAll below fills the signing key before the env is used.
  const env = useTestEnvironment({ APIKEY_CACHE_SECONDS: '1', SNAPSHOT_CACHE_SECONDS: '0', CURSOR_SECRET: 'x'.repeat(40), ...overrides }, options);
  let api: RunningApi;
  let workers: RunningWorkers;
  const harness = env as ApiHarness;

  beforeAll(async () => {
    holder.jwk = await generateSigningKeyJwk('test');
    harness.signingJwk = holder.jwk;
    const config = parseConfig({ ...env.env, API_SIGNING_KEYS: JSON.stringify([holder.jwk]) });
    env.config = config;
    workers = await startWorkers(config, silentLogger, { kinds: ['profiles', 'invites', 'follows', 'sbt-mints'], maintenance: false, materialize: true });
    api = await startApi(config, silentLogger, 0);
    harness.url = `http://127.0.0.1:${api.port}`;
    harness.server = api.server;
  });
  afterAll(async () => {
    await api?.close();
    await workers?.close();
  });

  harness.call = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.apiKey) headers.set('ApiKey', init.apiKey);
    const response = await fetch(`${harness.url}${path}`, { ...init, headers });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, headers: response.headers, body };
  };
  harness.createApiKey = async (args = ['--name', 'acme', '--domain', 'app.acme.xyz']) => {
    const { code, output } = await runCliInProcess(['apikey', 'create', ...args], env.env);
    if (code !== 0) throw new Error(`apikey create failed: ${output}`);
    const key = apiKeyIn(output);
    if (!key) throw new Error(`no key in: ${output}`);
    // The API sees a new key once its copy of the keys is older than APIKEY_CACHE_SECONDS
    // (api-key-cache.ts): past that, any copy in use was read after the key was written.
    await new Promise((resolve) => setTimeout(resolve, harness.config.APIKEY_CACHE_SECONDS * 1000 + 250));
    return { key, keyId: key.split('_')[1]! };
  };
  harness.unifiedTokenFor = async (profileId, address) =>
    issueUnifiedToken(await loadSigningKeys(harness.config), harness.config, { profileId, address });
  harness.addressToken = async (apiKey, account, domain = 'app.acme.xyz') => {
    const nonce = await harness.call('/api/v1/auth/nonce', { apiKey });
    const message = createSiweMessage({
      domain,
      address: account.address,
      uri: `https://${domain}/login`,
      version: '1',
      chainId: 1,
      nonce: nonce.body.data.nonce,
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 5 * 60_000),
    });
    const signature = await account.signMessage({ message });
    const address = await harness.call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: JSON.stringify({ message, signature }) });
    if (address.body.code !== '0') throw new Error(`address token: ${JSON.stringify(address.body)}`);
    return address.body.data.token;
  };
  harness.signInWallet = async (apiKey, account, domain = 'app.acme.xyz') => {
    const unified = await harness.call('/api/v1/auth', {
      apiKey,
      method: 'POST',
      headers: { 'I-Authorization': `Bearer ${await harness.addressToken(apiKey, account, domain)}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    if (unified.body.code !== '0') throw new Error(`auth: ${JSON.stringify(unified.body)}`);
    return unified.body.data.token;
  };
  return harness;
}

/** The ApiKey `soulgraph apikey create` printed. Not \b around it: a key may end in '-', which is no word character. */
export function apiKeyIn(output: string): string | undefined {
  return /(?<![\w-])(sg_[0-9a-f]{12}_[A-Za-z0-9_-]{32})(?![\w-])/.exec(output)?.[1];
}
