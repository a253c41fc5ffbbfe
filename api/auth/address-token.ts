/**
 * The address token (spec §4.2 `I-Authorization`): short-lived proof that the caller
 * controls a wallet address, exchanged by POST /api/v1/auth for a unified token.
 *
 * We issue our own after a SIWE login (`sub` = address, audience `<API_JWT_AUDIENCE>:address`
 * so it can never pass as a unified token), and accept those of external issuers listed
 * in ADDRESS_TOKEN_ISSUERS (a wallet SDK's auth service), verified against their JWKS.
 */
import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Config } from '../../shared/config.ts';
import { SIGNING_ALGORITHM } from '../../shared/signing-key-jwk.ts';
import type { SigningKeys } from './signing-keys.ts';
import { TokenError, tokenErrorFromJose } from '../common/token-error.ts';
import { ownKeyFor } from './unified-token.ts';

export type AddressTokenConfig = Pick<
  Config,
  'API_JWT_ISSUER' | 'API_JWT_AUDIENCE' | 'ADDRESS_TOKEN_TTL_SECONDS' | 'ADDRESS_TOKEN_ISSUERS' | 'NODE_ENV'
>;

export interface AddressTokenClaims {
  address: string;
  chainId: number;
  /** The SIWE domain the user signed in to. */
  domain: string;
}

export interface AddressTokenVerifier {
  /** The lowercase address the token vouches for, or a TokenError. */
  verify(token: string): Promise<{ address: string }>;
}

/** Asymmetric only: a symmetric algorithm would let anyone holding the public JWKS forge. */
export const EXTERNAL_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'EdDSA'];

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function addressTokenAudience(config: Pick<Config, 'API_JWT_AUDIENCE'>): string {
  return `${config.API_JWT_AUDIENCE}:address`;
}

export async function issueAddressToken(
  keys: SigningKeys,
  config: Pick<AddressTokenConfig, 'API_JWT_ISSUER' | 'API_JWT_AUDIENCE' | 'ADDRESS_TOKEN_TTL_SECONDS'>,
  claims: AddressTokenClaims,
  now: Date = new Date(),
): Promise<string> {
  if (!ADDRESS.test(claims.address)) throw new TypeError('issueAddressToken: address must be a 0x-prefixed 20-byte hex address');
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ chainId: claims.chainId, domain: claims.domain })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: keys.signingKey.kid, typ: 'JWT' })
    .setSubject(claims.address.toLowerCase())
    .setIssuer(config.API_JWT_ISSUER)
    .setAudience(addressTokenAudience(config))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + config.ADDRESS_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(keys.signingKey.key);
}

/** Throws (naming ADDRESS_TOKEN_ISSUERS) when the external issuer list is invalid. */
export function createAddressTokenVerifier(
  keys: SigningKeys,
  config: AddressTokenConfig,
  options: { now?: () => Date } = {},
): AddressTokenVerifier {
  const now = options.now ?? (() => new Date());
  const external = new Map(parseAddressTokenIssuers(config).map((issuer) => [issuer.issuer, remoteIssuer(issuer)]));
  return {
    async verify(token) {
      const issuer = unverifiedIssuerOf(token);
      if (issuer === config.API_JWT_ISSUER) return verifyOwnToken(keys, config, token, now());
      const remote = external.get(issuer);
      if (!remote) throw new TokenError('issuer', 'address token from an issuer we do not accept');
      return verifyExternalToken(remote, token, now());
    },
  };
}

const externalIssuerSchema = z.object({
  issuer: z.string().min(1),
  jwksUrl: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /** Top-level claim holding the 0x address, e.g. "sub" or "address". */
  addressClaim: z.string().min(1),
});
export type ExternalAddressTokenIssuer = z.infer<typeof externalIssuerSchema>;

export function parseAddressTokenIssuers(
  config: Pick<AddressTokenConfig, 'ADDRESS_TOKEN_ISSUERS' | 'API_JWT_ISSUER' | 'NODE_ENV'>,
): ExternalAddressTokenIssuer[] {
  const issuers = parseIssuerList(config.ADDRESS_TOKEN_ISSUERS);
  for (const { issuer, jwksUrl } of issuers) {
    // Our own issuer name must keep meaning our own keys.
    if (issuer === config.API_JWT_ISSUER) throw invalidIssuers(`issuer "${issuer}" is API_JWT_ISSUER`);
    // Keys fetched over plain HTTP could be swapped in transit: tests and development only.
    if (config.NODE_ENV === 'production' && !jwksUrl.startsWith('https:')) {
      throw invalidIssuers(`jwksUrl of "${issuer}" must be https:// in production`);
    }
  }
  if (new Set(issuers.map((i) => i.issuer)).size !== issuers.length) throw invalidIssuers('issuers must be unique');
  return issuers;
}

function parseIssuerList(raw: string): ExternalAddressTokenIssuer[] {
  let json: unknown;
  try {
    json = JSON.parse(raw.trim() === '' ? '[]' : raw);
  } catch {
    throw invalidIssuers('not JSON');
  }
  const result = z.array(externalIssuerSchema).safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw invalidIssuers(`${issue.path.join('.') || 'value'}: ${issue.message}`);
}

function invalidIssuers(detail: string): Error {
  return new Error(`Invalid setting ADDRESS_TOKEN_ISSUERS: ${detail}`);
}

interface RemoteIssuer extends ExternalAddressTokenIssuer {
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

function remoteIssuer(issuer: ExternalAddressTokenIssuer): RemoteIssuer {
  // One JWKS per issuer for the verifier's lifetime: jose caches and refetches on unknown kids.
  return { ...issuer, jwks: createRemoteJWKSet(new URL(issuer.jwksUrl)) };
}

/** `iss` before any verification: it only picks which keys to verify with. */
function unverifiedIssuerOf(token: string): string {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(token);
  } catch (error) {
    throw new TokenError('invalid', 'address token is not a JWT', { cause: error });
  }
  if (typeof payload.iss !== 'string') throw new TokenError('issuer', 'address token names no issuer');
  return payload.iss;
}

async function verifyOwnToken(
  keys: SigningKeys,
  config: AddressTokenConfig,
  token: string,
  now: Date,
): Promise<{ address: string }> {
  try {
    const { payload } = await jwtVerify(token, (header) => ownKeyFor(keys, header), {
      algorithms: [SIGNING_ALGORITHM],
      issuer: config.API_JWT_ISSUER,
      audience: addressTokenAudience(config),
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: now,
    });
    return { address: addressIn(payload, 'sub') };
  } catch (error) {
    throw tokenErrorFromJose(error);
  }
}

async function verifyExternalToken(remote: RemoteIssuer, token: string, now: Date): Promise<{ address: string }> {
  try {
    const { payload } = await jwtVerify(token, remote.jwks, {
      algorithms: EXTERNAL_ALGORITHMS,
      issuer: remote.issuer,
      audience: remote.audience,
      // A token without expiry would be a permanent credential.
      requiredClaims: ['exp'],
      currentDate: now,
    });
    return { address: addressIn(payload, remote.addressClaim) };
  } catch (error) {
    if (isJwksUnavailable(error)) {
      throw new Error(`JWKS of address token issuer "${remote.issuer}" is unavailable`, { cause: error });
    }
    throw tokenErrorFromJose(error);
  }
}

/**
 * The issuer's key server failing (timeout, non-200, bad JSON, network) says nothing
 * about the token: callers should answer "try later", not "bad token".
 */
function isJwksUnavailable(error: unknown): boolean {
  if (error instanceof TokenError) return false;
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return true;
  if (error instanceof joseErrors.JOSEError) return error.code === 'ERR_JOSE_GENERIC';
  return true;
}

/** The lowercase 0x address in `claim`, or 'invalid'. */
function addressIn(payload: JWTPayload, claim: string): string {
  const value = payload[claim];
  if (typeof value !== 'string' || !ADDRESS.test(value)) {
    throw new TokenError('invalid', `address token claim "${claim}" is not an address`);
  }
  return value.toLowerCase();
}
