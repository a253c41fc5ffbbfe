/**
 * The unified token (spec §5): the bearer credential of the recommendation endpoint,
 * issued by POST /api/v1/auth for UNIFIED_TOKEN_TTL_SECONDS (7 days by default).
 * `sub` is the profile id; `address` the wallet it was issued to.
 */
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT, type CryptoKey, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { Config } from '../../shared/config.ts';
import { SIGNING_ALGORITHM } from '../../shared/signing-key-jwk.ts';
import type { SigningKeys } from './signing-keys.ts';
import { TokenError, tokenErrorFromJose } from '../common/token-error.ts';

export type UnifiedTokenConfig = Pick<Config, 'API_JWT_ISSUER' | 'API_JWT_AUDIENCE' | 'UNIFIED_TOKEN_TTL_SECONDS'>;

export interface UnifiedTokenSubject {
  profileId: string;
  /** 0x address; stored lowercase. */
  address: string;
}

const ADDRESS = /^0x[0-9a-f]{40}$/;

export async function issueUnifiedToken(
  keys: SigningKeys,
  config: UnifiedTokenConfig,
  subject: UnifiedTokenSubject,
  now: Date = new Date(),
): Promise<string> {
  const address = subject.address.toLowerCase();
  if (!ADDRESS.test(address)) throw new TypeError('issueUnifiedToken: address must be a 0x-prefixed 20-byte hex address');
  if (subject.profileId === '') throw new TypeError('issueUnifiedToken: profileId is empty');
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ address })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: keys.signingKey.kid, typ: 'JWT' })
    .setSubject(subject.profileId)
    .setIssuer(config.API_JWT_ISSUER)
    .setAudience(config.API_JWT_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + config.UNIFIED_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(keys.signingKey.key);
}

/** A verified token's subject and when the token expires (exp, seconds). */
export interface VerifiedUnifiedToken extends UnifiedTokenSubject {
  expiresAt: number;
}

/** The token's subject, or a TokenError saying why it was refused. */
export async function verifyUnifiedToken(
  keys: SigningKeys,
  config: UnifiedTokenConfig,
  token: string,
  now: Date = new Date(),
): Promise<VerifiedUnifiedToken> {
  const payload = await verifiedPayload(keys, config, token, now);
  // requiredClaims makes jose check that exp is present and a number.
  return { ...subjectOf(payload), expiresAt: payload.exp! };
}

async function verifiedPayload(keys: SigningKeys, config: UnifiedTokenConfig, token: string, now: Date): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, (header) => ownKeyFor(keys, header), {
      // ES256 only: refuses `alg: none` and HS256 "signed" with our public key.
      algorithms: [SIGNING_ALGORITHM],
      issuer: config.API_JWT_ISSUER,
      audience: config.API_JWT_AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: now,
    });
    return payload;
  } catch (error) {
    throw tokenErrorFromJose(error);
  }
}

/** Our public key for the header's kid; a kid we never had (or dropped) is 'invalid'. */
export function ownKeyFor(keys: SigningKeys, header: JWTHeaderParameters): CryptoKey {
  const key = keys.keyFor(header.kid);
  if (!key) throw new TokenError('invalid', 'token signed with an unknown key id');
  return key;
}

function subjectOf(payload: JWTPayload): UnifiedTokenSubject {
  const { sub, address } = payload;
  if (typeof sub !== 'string' || sub === '' || typeof address !== 'string' || !ADDRESS.test(address)) {
    throw new TokenError('invalid', 'unified token lacks a profile id or address');
  }
  return { profileId: sub, address };
}
