/**
 * The API's own ES256 keys, from API_SIGNING_KEYS (a JSON array of private JWKs with a
 * `kid`). The first key signs; every key verifies, so a rotation is: prepend a new key,
 * wait one token lifetime, drop the old one.
 *
 * Outside production an unset value means "generate a key for this process": convenient
 * for development, but tokens do not survive a restart, hence refused in production.
 */
import { CompactSign, compactVerify, importJWK, type CryptoKey, type JWK } from 'jose';
import { z } from 'zod';
import type { Config } from '../../shared/config.ts';
import { generateSigningKeyJwk, privateEcJwk, SIGNING_ALGORITHM, type PrivateEcJwk } from '../../shared/signing-key-jwk.ts';


export interface SigningKey {
  kid: string;
  /** Private key (a WebCrypto CryptoKey: jose 6 replaced KeyLike with it). */
  key: CryptoKey;
}

export interface SigningKeys {
  /** The key new tokens are signed with (the first configured one). */
  readonly signingKey: SigningKey;
  /** Public halves of all keys, for /.well-known/jwks.json. */
  publicJwks(): { keys: JWK[] };
  /** Public verification key of `kid`, or undefined when the kid is not ours. */
  keyFor(kid: string | undefined): CryptoKey | undefined;
}



const keyListSchema = z
  .array(privateEcJwk)
  .min(1, 'must hold at least one key')
  .refine((keys) => new Set(keys.map((k) => k.kid)).size === keys.length, 'kids must be unique');

export async function loadSigningKeys(config: Pick<Config, 'API_SIGNING_KEYS' | 'NODE_ENV'>): Promise<SigningKeys> {
  const raw = config.API_SIGNING_KEYS.trim();
  if (raw === '') {
    if (config.NODE_ENV === 'production') throw new Error('API_SIGNING_KEYS is required in production');
    return keySetOf([await generateSigningKeyJwk('dev')]);
  }
  return keySetOf(parseKeyList(raw));
}

/** Parse errors name the setting and the failing path, never the (secret) value. */
function parseKeyList(raw: string): PrivateEcJwk[] {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // JSON.parse's own message quotes part of the input: the private key.
    throw new Error('Invalid setting API_SIGNING_KEYS: not JSON (expected an array of ES256 private JWKs)');
  }
  const result = keyListSchema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new Error(`Invalid setting API_SIGNING_KEYS${where}: ${issue.message}`);
}

async function keySetOf(jwks: PrivateEcJwk[]): Promise<SigningKeys> {
  const pairs = await Promise.all(jwks.map(importKeyPair));
  const publicKeys = new Map(pairs.map((p) => [p.kid, p.publicKey]));
  const published = pairs.map((p) => p.publicJwk);
  const first = pairs[0]!;
  return {
    signingKey: { kid: first.kid, key: first.privateKey },
    publicJwks: () => ({ keys: published.map((jwk) => ({ ...jwk })) }),
    keyFor: (kid) => (kid === undefined ? undefined : publicKeys.get(kid)),
  };
}

interface KeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function importKeyPair(jwk: PrivateEcJwk): Promise<KeyPair> {
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwk.kid, alg: SIGNING_ALGORITHM, use: 'sig' };
  try {
    const privateKey = (await importJWK({ ...jwk, alg: SIGNING_ALGORITHM }, SIGNING_ALGORITHM)) as CryptoKey;
    const publicKey = (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey;
    await assertHalvesMatch(privateKey, publicKey);
    return { kid: jwk.kid, privateKey, publicKey, publicJwk };
  } catch (error) {
    throw new Error(`Invalid setting API_SIGNING_KEYS: key "${jwk.kid}" is not a usable P-256 key pair`, { cause: error });
  }
}

/**
 * A JWK whose x/y do not belong to its d would sign tokens nobody can verify with the
 * published JWKS; one probe signature at start turns that into a start-up error.
 */
async function assertHalvesMatch(privateKey: CryptoKey, publicKey: CryptoKey): Promise<void> {
  const probe = await new CompactSign(new TextEncoder().encode('probe'))
    .setProtectedHeader({ alg: SIGNING_ALGORITHM })
    .sign(privateKey);
  await compactVerify(probe, publicKey);
}
