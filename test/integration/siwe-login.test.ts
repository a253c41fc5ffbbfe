import { Redis } from 'ioredis';
import { createSiweMessage, type CreateSiweMessageParameters } from 'viem/siwe';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addressOf } from '../../shared/redis.ts';
import { createNonceStore, type NonceStore } from '../../api/auth/siwe-nonces.ts';
import { verifySiweLogin, type SiweLoginRequest } from '../../api/auth/siwe-verification.ts';
import { TokenError } from '../../api/common/token-error.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { expectRejected } from '../support/token-assertions.ts';

const env = useTestEnvironment();
const DOMAIN = 'app.example.com';
const MINUTE = 60_000;

let redis: Redis;
let nonces: NonceStore;
const user = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());

beforeAll(() => {
  redis = new Redis(addressOf(env.config.REDIS_URL!));
  nonces = createNonceStore(redis, env.config.SIWE_NONCE_TTL_SECONDS, `${env.config.QUEUE_PREFIX}:siwe-nonce`);
});
afterAll(async () => {
  await redis?.quit();
});

type MessageFields = Partial<CreateSiweMessageParameters>;

/** A SIWE message for a fresh nonce, signed by `signer` (the user unless told otherwise). */
async function signedLogin(fields: MessageFields = {}, signer: PrivateKeyAccount = user) {
  const nonce = fields.nonce ?? (await nonces.issue());
  const message = createSiweMessage({
    domain: DOMAIN,
    address: user.address,
    uri: `https://${DOMAIN}/login`,
    version: '1',
    chainId: 1,
    nonce,
    issuedAt: new Date(),
    statement: 'Sign in to Soulgraph',
    ...fields,
  });
  const signature = await signer.signMessage({ message });
  return { message, signature, nonce };
}

function request(login: { message: string; signature: string }, extra: Partial<SiweLoginRequest> = {}): SiweLoginRequest {
  return { ...login, allowedDomains: [DOMAIN], nonces, ...extra };
}


/** The nonce is still usable: a correctly signed retry with it succeeds. */
async function expectNonceUnspent(nonce: string): Promise<void> {
  const retry = await signedLogin({ nonce });
  await expect(verifySiweLogin(request(retry))).resolves.toMatchObject({ address: user.address.toLowerCase() });
}

describe('SIWE login', () => {
  it('returns the lowercase address and chain id, and spends the nonce (a replay is refused with "nonce")', async () => {
    const login = await signedLogin({ chainId: 137 });
    await expect(verifySiweLogin(request(login))).resolves.toEqual({
      address: user.address.toLowerCase(),
      chainId: 137,
      domain: DOMAIN,
    });
    await expectRejected(verifySiweLogin(request(login)), 'nonce');
  });

  it('refuses a nonce we never issued with "nonce"', async () => {
    const login = await signedLogin({ nonce: 'a'.repeat(32) });
    await expectRejected(verifySiweLogin(request(login)), 'nonce');
  });

  it('refuses a domain that is not allowed with "domain", without spending the nonce', async () => {
    const login = await signedLogin({ domain: 'evil.example.net' });
    await expectRejected(verifySiweLogin(request(login)), 'domain');
    await expectNonceUnspent(login.nonce);
  });

  it('compares domains case-insensitively, ports included', async () => {
    const login = await signedLogin({ domain: 'localhost:3000' });
    await expect(verifySiweLogin(request(login, { allowedDomains: ['LOCALHOST:3000'] }))).resolves.toMatchObject({ domain: 'localhost:3000' });
    const other = await signedLogin({ domain: 'localhost:4000' });
    await expectRejected(verifySiweLogin(request(other, { allowedDomains: ['localhost:3000'] })), 'domain');
  });

  it('refuses an expired message with "expired", without spending the nonce', async () => {
    const login = await signedLogin({ issuedAt: new Date(Date.now() - 10 * MINUTE), expirationTime: new Date(Date.now() - MINUTE) });
    await expectRejected(verifySiweLogin(request(login)), 'expired');
    await expectNonceUnspent(login.nonce);
  });

  it('accepts a message whose expiry is still ahead', async () => {
    const login = await signedLogin({ expirationTime: new Date(Date.now() + 5 * MINUTE) });
    await expect(verifySiweLogin(request(login))).resolves.toBeDefined();
  });

  it('refuses an issuedAt in the future beyond 60 s of clock skew with "not-yet-valid"', async () => {
    const login = await signedLogin({ issuedAt: new Date(Date.now() + 5 * MINUTE) });
    await expectRejected(verifySiweLogin(request(login)), 'not-yet-valid');
    const slightlyAhead = await signedLogin({ issuedAt: new Date(Date.now() + 30_000) });
    await expect(verifySiweLogin(request(slightlyAhead))).resolves.toBeDefined();
  });

  it('refuses a notBefore in the future with "not-yet-valid"', async () => {
    const login = await signedLogin({ notBefore: new Date(Date.now() + 10 * MINUTE) });
    await expectRejected(verifySiweLogin(request(login)), 'not-yet-valid');
    await expectNonceUnspent(login.nonce);
  });

  it('refuses an unsupported chain with "chain" when a list of chains is given', async () => {
    const login = await signedLogin({ chainId: 56 });
    await expectRejected(verifySiweLogin(request(login, { supportedChainIds: [1, 137] })), 'chain');
    await expect(verifySiweLogin(request(login, { supportedChainIds: [56] }))).resolves.toMatchObject({ chainId: 56 });
  });

  it('refuses a signature made by another account with "signature", without spending the nonce', async () => {
    const login = await signedLogin({}, stranger);
    await expectRejected(verifySiweLogin(request(login)), 'signature');
    await expectNonceUnspent(login.nonce);
  });

  it('refuses malformed signatures with "signature"', async () => {
    const login = await signedLogin();
    await expectRejected(verifySiweLogin(request({ ...login, signature: '0x1234' })), 'signature');
    await expectRejected(verifySiweLogin(request({ ...login, signature: 'not hex' })), 'signature');
  });

  it('refuses a signature over a different message than the one submitted', async () => {
    const login = await signedLogin();
    const altered = login.message.replace('Sign in to Soulgraph', 'Sign in to Soulgraph!');
    await expectRejected(verifySiweLogin(request({ ...login, message: altered })), 'signature');
  });

  it('refuses a message missing its nonce with "invalid"', async () => {
    const login = await signedLogin();
    const message = login.message.replace(/\nNonce: [^\n]*/, '');
    const signature = await user.signMessage({ message });
    await expectRejected(verifySiweLogin(request({ message, signature })), 'invalid');
  });

  it('refuses text that is not an EIP-4361 message with "invalid"', async () => {
    const message = 'please let me in';
    await expectRejected(verifySiweLogin(request({ message, signature: await user.signMessage({ message }) })), 'invalid');
    await expectRejected(verifySiweLogin(request({ message: 'x'.repeat(10_000), signature: '0x' })), 'invalid');
  });

  it('refuses a statement other than the required one with "statement"', async () => {
    const login = await signedLogin({ statement: 'Sign in to Soulgraph' });
    await expectRejected(verifySiweLogin(request(login, { expectedStatement: 'Access to User Tag.' })), 'statement');
    const tag = await signedLogin({ statement: 'Access to User Tag.' });
    await expect(verifySiweLogin(request(tag, { expectedStatement: 'Access to User Tag.' }))).resolves.toBeDefined();
  });

  it('asks the public client only when local recovery fails (smart wallets)', async () => {
    const verifyMessage = vi.fn(async () => true);
    const eoa = await signedLogin();
    await verifySiweLogin(request(eoa, { publicClient: { verifyMessage } }));
    expect(verifyMessage).not.toHaveBeenCalled();

    // A contract wallet's signature is not an ECDSA signature by its address: only the chain can say.
    const contractWallet = await signedLogin({}, stranger);
    await expect(verifySiweLogin(request(contractWallet, { publicClient: { verifyMessage } }))).resolves.toMatchObject({
      address: user.address.toLowerCase(),
    });
    expect(verifyMessage).toHaveBeenCalledWith(expect.objectContaining({ address: user.address, message: contractWallet.message }));

    const refused = await signedLogin({}, stranger);
    await expectRejected(verifySiweLogin(request(refused, { publicClient: { verifyMessage: async () => false } })), 'signature');
  });

  it('lets an RPC failure of the public client through as a non-token error, nonce unspent', async () => {
    const login = await signedLogin({}, stranger);
    const down = { verifyMessage: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const error = await verifySiweLogin(request(login, { publicClient: down })).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(TokenError);
    expect(String(error)).toContain('ECONNREFUSED');
    expect(await nonces.consume(login.nonce)).toBe(true);
  });
});

describe('SIWE nonces', () => {
  it('are at least 16 random alphanumeric characters', async () => {
    const issued = await Promise.all(Array.from({ length: 50 }, () => nonces.issue()));
    for (const nonce of issued) expect(nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(new Set(issued).size).toBe(50);
  });

  it('are single-use: of 20 concurrent consumes exactly one succeeds', async () => {
    const nonce = await nonces.issue();
    const results = await Promise.all(Array.from({ length: 20 }, () => nonces.consume(nonce)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('expire after their TTL', async () => {
    const shortLived = createNonceStore(redis, 1, `${env.config.QUEUE_PREFIX}:ttl-nonce`);
    const nonce = await shortLived.issue();
    expect(await redis.ttl(`${env.config.QUEUE_PREFIX}:ttl-nonce:${nonce}`)).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await shortLived.consume(nonce)).toBe(false);
  });

  it('are refused for unknown or oddly shaped values without touching other keys', async () => {
    expect(await nonces.consume('f'.repeat(32))).toBe(false);
    expect(await nonces.consume('*')).toBe(false);
    expect(await nonces.consume('')).toBe(false);
  });

  it('belong to their store: another prefix does not see them', async () => {
    const other = createNonceStore(redis, 60, `${env.config.QUEUE_PREFIX}:other-nonce`);
    const nonce = await nonces.issue();
    expect(await other.consume(nonce)).toBe(false);
    expect(await nonces.consume(nonce)).toBe(true);
  });
});
