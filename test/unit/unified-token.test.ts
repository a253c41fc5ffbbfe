import { base64url, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../shared/config.ts';
import { loadSigningKeys, type SigningKeys } from '../../api/auth/signing-keys.ts';
import { generateSigningKeyJwk, type PrivateEcJwk } from '../../shared/signing-key-jwk.ts';
import { issueUnifiedToken, verifyUnifiedToken } from '../../api/auth/unified-token.ts';
import { expectRejected } from '../support/token-assertions.ts';

const ADDRESS = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const subject = { profileId: 'profile-42', address: ADDRESS };

function configWith(env: Record<string, string> = {}): Config {
  return parseConfig({ NODE_ENV: 'test', ...env });
}


/** Replaces the payload segment, keeping the original header and signature. */
function withPayload(token: string, payload: object): string {
  const [header, , signature] = token.split('.');
  return [header, base64url.encode(JSON.stringify(payload)), signature].join('.');
}

let first: PrivateEcJwk;
let second: PrivateEcJwk;
let config: Config;
let keys: SigningKeys;

beforeAll(async () => {
  first = await generateSigningKeyJwk();
  second = await generateSigningKeyJwk();
  config = configWith({ API_SIGNING_KEYS: JSON.stringify([first, second]) });
  keys = await loadSigningKeys(config);
});

describe('unified tokens', () => {
  it('verify to the profile id and lowercase address they were issued for, and their expiry', async () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    const token = await issueUnifiedToken(keys, config, subject, issuedAt);
    await expect(verifyUnifiedToken(keys, config, token, issuedAt)).resolves.toEqual({
      profileId: 'profile-42',
      address: ADDRESS.toLowerCase(),
      expiresAt: issuedAt.getTime() / 1000 + config.UNIFIED_TOKEN_TTL_SECONDS,
    });
  });

  it('carry ES256, our kid, iss, aud, iat, a jti and exp = iat + UNIFIED_TOKEN_TTL_SECONDS', async () => {
    const token = await issueUnifiedToken(keys, config, subject);
    const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(new TextDecoder().decode(base64url.decode(part!))));
    expect(header).toMatchObject({ alg: 'ES256', kid: first.kid });
    expect(payload).toMatchObject({ sub: 'profile-42', iss: 'soulgraph', aud: 'soulgraph-api', address: ADDRESS.toLowerCase() });
    expect(payload.exp - payload.iat).toBe(config.UNIFIED_TOKEN_TTL_SECONDS);
    expect(typeof payload.jti).toBe('string');
  });

  it('are refused as expired once their lifetime has passed', async () => {
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    const token = await issueUnifiedToken(keys, config, subject, eightDaysAgo);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'expired');
  });

  it('are refused with "issuer" when issued under another issuer name', async () => {
    const other = configWith({ API_JWT_ISSUER: 'someone-else' });
    const token = await issueUnifiedToken(keys, other, subject);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'issuer');
  });

  it('are refused with "audience" when issued for another audience', async () => {
    const other = configWith({ API_JWT_AUDIENCE: 'another-api' });
    const token = await issueUnifiedToken(keys, other, subject);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'audience');
  });

  it('are refused with "not-yet-valid" before their nbf', async () => {
    const token = await new SignJWT({ address: ADDRESS.toLowerCase() })
      .setProtectedHeader({ alg: 'ES256', kid: keys.signingKey.kid })
      .setSubject('profile-42')
      .setIssuer(config.API_JWT_ISSUER)
      .setAudience(config.API_JWT_AUDIENCE)
      .setIssuedAt()
      .setNotBefore('1h')
      .setExpirationTime('2h')
      .sign(keys.signingKey.key);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'not-yet-valid');
  });

  it('are refused when the payload was altered after signing', async () => {
    const token = await issueUnifiedToken(keys, config, subject);
    const now = Math.floor(Date.now() / 1000);
    const forged = withPayload(token, {
      sub: 'profile-1',
      address: ADDRESS.toLowerCase(),
      iss: config.API_JWT_ISSUER,
      aud: config.API_JWT_AUDIENCE,
      iat: now,
      exp: now + 3600,
    });
    await expectRejected(verifyUnifiedToken(keys, config, forged), 'invalid');
  });

  it('are refused when unsigned (alg: none)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid: first.kid }));
    const payload = base64url.encode(
      JSON.stringify({ sub: 'profile-42', address: ADDRESS.toLowerCase(), iss: 'soulgraph', aud: 'soulgraph-api', iat: now, exp: now + 3600 }),
    );
    await expectRejected(verifyUnifiedToken(keys, config, `${header}.${payload}.`), 'invalid');
  });

  it('are refused when HMAC-signed with our public key as the secret (algorithm confusion)', async () => {
    const publicJwk = keys.publicJwks().keys[0]!;
    const secrets = [new TextEncoder().encode(JSON.stringify(publicJwk)), base64url.decode(publicJwk.x!)];
    for (const secret of secrets) {
      const token = await new SignJWT({ address: ADDRESS.toLowerCase() })
        .setProtectedHeader({ alg: 'HS256', kid: first.kid })
        .setSubject('profile-42')
        .setIssuer(config.API_JWT_ISSUER)
        .setAudience(config.API_JWT_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(secret);
      await expectRejected(verifyUnifiedToken(keys, config, token), 'invalid');
    }
  });

  it('are refused when signed by a key id we do not hold', async () => {
    const stranger = await loadSigningKeys(configWith());
    const token = await issueUnifiedToken(stranger, config, subject);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'invalid');
  });

  it('are refused when a known kid is claimed by a foreign key', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ address: ADDRESS.toLowerCase() })
      .setProtectedHeader({ alg: 'ES256', kid: first.kid })
      .setSubject('profile-42')
      .setIssuer(config.API_JWT_ISSUER)
      .setAudience(config.API_JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    await expectRejected(verifyUnifiedToken(keys, config, token), 'invalid');
  });

  it('are refused when not a JWT at all', async () => {
    await expectRejected(verifyUnifiedToken(keys, config, 'not-a-token'), 'invalid');
    await expectRejected(verifyUnifiedToken(keys, config, ''), 'invalid');
  });

  it('still verify after rotation when signed by a key that is no longer first', async () => {
    const beforeRotation = await loadSigningKeys(configWith({ API_SIGNING_KEYS: JSON.stringify([second]) }));
    const token = await issueUnifiedToken(beforeRotation, config, subject);
    await expect(verifyUnifiedToken(keys, config, token)).resolves.toMatchObject({ profileId: 'profile-42' });
  });
});

describe('signing keys', () => {
  it('sign with the first configured key', () => {
    expect(keys.signingKey.kid).toBe(first.kid);
  });

  it('publish public JWKs only: kid, alg ES256, use sig and no private d', () => {
    const { keys: published } = keys.publicJwks();
    expect(published.map((k) => k.kid)).toEqual([first.kid, second.kid]);
    for (const jwk of published) {
      expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwk).not.toHaveProperty('d');
    }
  });

  it('look up verification keys by kid, and nothing for an unknown kid', () => {
    expect(keys.keyFor(second.kid)).toBeDefined();
    expect(keys.keyFor('nope')).toBeUndefined();
    expect(keys.keyFor(undefined)).toBeUndefined();
  });

  it('are generated per process outside production, with a dev- kid', async () => {
    const dev = await loadSigningKeys(configWith({ NODE_ENV: 'development' }));
    expect(dev.signingKey.kid).toMatch(/^dev-[0-9a-f]{16}$/);
  });

  it('are required in production', async () => {
    await expect(loadSigningKeys(configWith({ NODE_ENV: 'production' }))).rejects.toThrow(
      'API_SIGNING_KEYS is required in production',
    );
  });

  it('reject a malformed value naming API_SIGNING_KEYS without echoing it', async () => {
    const secretLooking = '[{"kty":"EC","d":"SUPERSECRET"';
    const error = await loadSigningKeys(configWith({ API_SIGNING_KEYS: secretLooking })).catch((e: Error) => e);
    expect(String(error)).toContain('API_SIGNING_KEYS');
    expect(String(error)).not.toContain('SUPERSECRET');
    await expect(loadSigningKeys(configWith({ API_SIGNING_KEYS: JSON.stringify([{ ...first, crv: 'P-384' }]) }))).rejects.toThrow(
      /API_SIGNING_KEYS at 0\.crv/,
    );
    await expect(loadSigningKeys(configWith({ API_SIGNING_KEYS: JSON.stringify([first, first]) }))).rejects.toThrow(/unique/);
    await expect(loadSigningKeys(configWith({ API_SIGNING_KEYS: '[]' }))).rejects.toThrow(/API_SIGNING_KEYS/);
  });

  it('reject a JWK whose public coordinates do not belong to its private key', async () => {
    const mismatched = { ...first, x: second.x, y: second.y };
    await expect(loadSigningKeys(configWith({ API_SIGNING_KEYS: JSON.stringify([mismatched]) }))).rejects.toThrow(
      /API_SIGNING_KEYS: key ".*" is not a usable P-256 key pair/,
    );
  });

  it('generate private JWKs that load as API_SIGNING_KEYS', async () => {
    const jwk = await generateSigningKeyJwk();
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwk.d).toBeTruthy();
    const loaded = await loadSigningKeys(configWith({ API_SIGNING_KEYS: JSON.stringify([jwk]) }));
    expect(loaded.signingKey.kid).toBe(jwk.kid);
  });
});
