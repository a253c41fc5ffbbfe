import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../shared/config.ts';
import {
  addressTokenAudience,
  createAddressTokenVerifier,
  issueAddressToken,
  parseAddressTokenIssuers,
  type AddressTokenVerifier,
} from '../../api/auth/address-token.ts';
import { loadSigningKeys, type SigningKeys } from '../../api/auth/signing-keys.ts';
import { TokenError } from '../../api/common/token-error.ts';
import { issueUnifiedToken } from '../../api/auth/unified-token.ts';
import { expectRejected } from '../support/token-assertions.ts';

const ADDRESS = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const WALLET_ISSUER = 'https://wallet-sdk.example';
const WALLET_AUDIENCE = 'soulgraph-dapp';

/** The external issuer: its key pair, and its JWKS served on 127.0.0.1. */
let walletKey: CryptoKey;
let jwksServer: Server;
let jwksUrl: string;
/** A port nothing listens on: an issuer whose key server is down. */
let deadJwksUrl: string;

let config: Config;
let keys: SigningKeys;
let verifier: AddressTokenVerifier;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  walletKey = pair.privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'wallet-1', alg: 'ES256', use: 'sig' }] });
  jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  jwksUrl = `http://127.0.0.1:${await listen(jwksServer)}/.well-known/jwks.json`;
  const closed = createServer();
  deadJwksUrl = `http://127.0.0.1:${await listen(closed)}/jwks.json`;
  await new Promise((resolve) => closed.close(resolve));

  config = configWith([
    { issuer: WALLET_ISSUER, jwksUrl, audience: WALLET_AUDIENCE, addressClaim: 'wallet' },
    { issuer: 'https://down.example', jwksUrl: deadJwksUrl, audience: WALLET_AUDIENCE, addressClaim: 'sub' },
  ]);
  keys = await loadSigningKeys(config);
  verifier = createAddressTokenVerifier(keys, config);
});

afterAll(async () => {
  await new Promise((resolve) => jwksServer?.close(resolve));
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function configWith(issuers: unknown, env: Record<string, string> = {}): Config {
  return parseConfig({ NODE_ENV: 'test', ADDRESS_TOKEN_ISSUERS: JSON.stringify(issuers), ...env });
}

/** A token as the wallet SDK's auth service would issue it. */
function walletToken(claims: JWTPayload, options: { issuer?: string; audience?: string; expires?: boolean } = {}): Promise<string> {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'wallet-1' })
    .setIssuer(options.issuer ?? WALLET_ISSUER)
    .setAudience(options.audience ?? WALLET_AUDIENCE)
    .setIssuedAt();
  if (options.expires !== false) jwt.setExpirationTime('5m');
  return jwt.sign(walletKey);
}


describe('our own address tokens', () => {
  it('verify to the lowercase address they were issued for', async () => {
    const token = await issueAddressToken(keys, config, { address: ADDRESS, chainId: 1, domain: 'app.example.com' });
    await expect(verifier.verify(token)).resolves.toEqual({ address: ADDRESS.toLowerCase() });
  });

  it('carry sub, chainId, the :address audience and a 10-minute lifetime', async () => {
    const token = await issueAddressToken(keys, config, { address: ADDRESS, chainId: 137, domain: 'app.example.com' });
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ sub: ADDRESS.toLowerCase(), chainId: 137, iss: 'soulgraph', aud: 'soulgraph-api:address' });
    expect(payload.exp - payload.iat).toBe(600);
    expect(addressTokenAudience(config)).toBe('soulgraph-api:address');
  });

  it('are refused as expired after ADDRESS_TOKEN_TTL_SECONDS', async () => {
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    const token = await issueAddressToken(keys, config, { address: ADDRESS, chainId: 1, domain: 'd' }, elevenMinutesAgo);
    await expectRejected(verifier.verify(token), 'expired');
  });

  it('cannot be replaced by a unified token (different audience)', async () => {
    const unified = await issueUnifiedToken(keys, config, { profileId: 'p1', address: ADDRESS });
    await expectRejected(verifier.verify(unified), 'audience');
  });

  it('are refused when signed by keys we do not hold', async () => {
    const stranger = await loadSigningKeys(configWith([]));
    const token = await issueAddressToken(stranger, config, { address: ADDRESS, chainId: 1, domain: 'd' });
    await expectRejected(verifier.verify(token), 'invalid');
  });

  it('are refused when not a JWT', async () => {
    await expectRejected(verifier.verify('garbage'), 'invalid');
  });
});

describe('address tokens of external issuers', () => {
  it('are accepted through the issuer JWKS, the address read from the configured claim', async () => {
    const token = await walletToken({ wallet: ADDRESS });
    await expect(verifier.verify(token)).resolves.toEqual({ address: ADDRESS.toLowerCase() });
  });

  it('are refused with "issuer" when the issuer is not configured', async () => {
    const token = await walletToken({ wallet: ADDRESS }, { issuer: 'https://unknown.example' });
    await expectRejected(verifier.verify(token), 'issuer');
    const noIssuer = await new SignJWT({ wallet: ADDRESS }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(walletKey);
    await expectRejected(verifier.verify(noIssuer), 'issuer');
  });

  it('are refused with "audience" when issued for another audience', async () => {
    const token = await walletToken({ wallet: ADDRESS }, { audience: 'some-other-dapp' });
    await expectRejected(verifier.verify(token), 'audience');
  });

  it('are refused with "invalid" when the address claim is missing or not an address', async () => {
    await expectRejected(verifier.verify(await walletToken({ sub: ADDRESS })), 'invalid');
    await expectRejected(verifier.verify(await walletToken({ wallet: 'alice.eth' })), 'invalid');
    await expectRejected(verifier.verify(await walletToken({ wallet: `${ADDRESS}00` })), 'invalid');
    await expectRejected(verifier.verify(await walletToken({ wallet: 42 })), 'invalid');
  });

  it('are refused without an expiry', async () => {
    await expectRejected(verifier.verify(await walletToken({ wallet: ADDRESS }, { expires: false })), 'invalid');
  });

  it('are refused when signed by a key outside the issuer JWKS', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ wallet: ADDRESS })
      .setProtectedHeader({ alg: 'ES256', kid: 'wallet-1' })
      .setIssuer(WALLET_ISSUER)
      .setAudience(WALLET_AUDIENCE)
      .setExpirationTime('5m')
      .sign(privateKey);
    await expectRejected(verifier.verify(token), 'invalid');
  });

  it('are refused when HMAC-signed (symmetric algorithms are not accepted)', async () => {
    const token = await new SignJWT({ wallet: ADDRESS })
      .setProtectedHeader({ alg: 'HS256', kid: 'wallet-1' })
      .setIssuer(WALLET_ISSUER)
      .setAudience(WALLET_AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-secret-of-at-least-32-bytes-long!!'));
    await expectRejected(verifier.verify(token), 'invalid');
  });

  it('fail with a non-token error when the issuer key server is unreachable', async () => {
    const token = await walletToken({ sub: ADDRESS }, { issuer: 'https://down.example' });
    const error = await verifier.verify(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(TokenError);
    expect(String(error)).toContain('https://down.example');
  });
});

describe('ADDRESS_TOKEN_ISSUERS', () => {
  const valid = { issuer: WALLET_ISSUER, jwksUrl: 'https://wallet-sdk.example/jwks.json', audience: 'a', addressClaim: 'sub' };

  it('defaults to no external issuers', () => {
    expect(parseAddressTokenIssuers(parseConfig({}))).toEqual([]);
  });

  it('rejects invalid values with an error naming the setting', () => {
    const parse = (issuers: unknown, env: Record<string, string> = {}) => () => parseAddressTokenIssuers(configWith(issuers, env));
    expect(() => parseAddressTokenIssuers(parseConfig({ ADDRESS_TOKEN_ISSUERS: '{nope' }))).toThrow(/ADDRESS_TOKEN_ISSUERS: not JSON/);
    expect(parse([{ ...valid, jwksUrl: 'ftp://x/jwks' }])).toThrow(/ADDRESS_TOKEN_ISSUERS: 0\.jwksUrl/);
    expect(parse([{ ...valid, addressClaim: undefined }])).toThrow(/ADDRESS_TOKEN_ISSUERS: 0\.addressClaim/);
    expect(parse([valid, valid])).toThrow(/unique/);
    expect(parse([{ ...valid, issuer: 'soulgraph' }])).toThrow(/API_JWT_ISSUER/);
    expect(parse([{ ...valid, jwksUrl: 'http://wallet-sdk.example/jwks.json' }], { NODE_ENV: 'production' })).toThrow(/https/);
    expect(parse([valid], { NODE_ENV: 'production' })()).toHaveLength(1);
  });
});
