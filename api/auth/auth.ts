/**
 * Signing in. The built-in address-token flow (EIP-4361):
 *   GET  /api/v1/auth/nonce          -> a single-use nonce
 *   POST /api/v1/auth/address-token  -> {message, signature} verified in full -> 10-minute address token
 * and the exchange the interface defines:
 *   POST /api/v1/auth                -> I-Authorization: Bearer <address token> -> 7-day unified token
 */
import { createHash } from 'node:crypto';
import type { Router } from 'express';
import type { Guards } from '../common/endpoints.ts';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import { identifier } from '../../shared/records/fields.ts';
import { ApiError, envelopeSchema, sendSuccess } from '../common/envelope.ts';
import { bearerToken } from './unified-auth.ts';
import type { PipelineProducer } from './pipeline-producer.ts';
import { profileExists, profileIdBy } from '../common/profile-lookup.ts';
import type { RegistrationClaims } from './registration-claims.ts';
import { parseQuery, parseWith } from '../common/request-validation.ts';
import { siweApiError, tokenApiError } from '../common/token-errors.ts';
import { issueAddressToken, type AddressTokenVerifier } from './address-token.ts';
import type { NonceStore } from './siwe-nonces.ts';
import type { SignatureVerifierClient } from '../../shared/siwe/siwe-message-verification.ts';
import { verifySiweLogin } from './siwe-verification.ts';
import type { SigningKeys } from './signing-keys.ts';
import { issueUnifiedToken } from './unified-token.ts';

export const nonceResponse = envelopeSchema(
  z.object({ nonce: z.string(), expiresIn: z.number().meta({ description: 'Seconds until the nonce expires' }) }),
);

export const addressTokenBody = z.strictObject({
  message: z.string().min(1).max(4096).meta({ description: 'The EIP-4361 message, as signed' }),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, 'must be a 0x-prefixed hex signature').max(20_000),
});

export const tokenResponse = envelopeSchema(
  z.object({ token: z.string(), expiresIn: z.number().meta({ description: 'Seconds until the token expires' }) }),
);

export const authBody = z.strictObject({
  inviteCode: identifier.optional().meta({ description: "The inviter's profileId, on the first sign-in" }),
});

export interface AuthDeps {
  config: Config;
  ch: ClickHouse;
  keys: SigningKeys;
  nonces: NonceStore;
  registrations: RegistrationClaims;
  addressTokens: AddressTokenVerifier;
  pipeline: PipelineProducer;
  /** Smart-wallet signature checks through the chain, when an RPC is configured. */
  signatureClient?: SignatureVerifierClient | undefined;
}

/** Registers on `router` (see recommendRoute). */
export function authRoutes(deps: AuthDeps, before: Guards, router: Router): Router {
  router.get('/api/v1/auth/nonce', ...before('auth-nonce'), async (req, res) => {
    parseQuery(z.object({}), req.query);
    sendSuccess(res, { nonce: await deps.nonces.issue(), expiresIn: deps.config.SIWE_NONCE_TTL_SECONDS });
  });

  router.post('/api/v1/auth/address-token', ...before('auth-address-token'), async (req, res) => {
    const body = parseWith(addressTokenBody, req.body ?? {});
    const apiKey = res.locals.apiKey as ApiKeyRecord;
    const login = await verifySiweLogin({
      message: body.message,
      signature: body.signature as `0x${string}`,
      allowedDomains: apiKey.domains,
      nonces: deps.nonces,
      supportedChainIds: [...deps.config.CHAIN_NAMES.keys()],
      ...(deps.signatureClient ? { publicClient: deps.signatureClient } : {}),
    }).catch((error: unknown) => {
      throw siweApiError(error);
    });
    const token = await issueAddressToken(deps.keys, deps.config, login);
    sendSuccess(res, { token, expiresIn: deps.config.ADDRESS_TOKEN_TTL_SECONDS });
  });

  router.post('/api/v1/auth', ...before('auth'), async (req, res) => {
    const body = parseWith(authBody, req.body ?? {});
    const { address } = await deps.addressTokens.verify(bearerToken(req.get('I-Authorization'), 'I-Authorization')).catch((error: unknown) => {
      throw tokenApiError(error);
    });
    const profileId = (await profileIdBy(deps.ch, 'address', address)) ?? (await register(deps, address, body.inviteCode, res.locals.requestId));
    const token = await issueUnifiedToken(deps.keys, deps.config, { profileId, address });
    sendSuccess(res, { token, expiresIn: deps.config.UNIFIED_TOKEN_TTL_SECONDS });
  });

  return router;
}

/** Same address, same profileId: a retried or concurrent first sign-in registers one profile. */
export function profileIdForAddress(address: string): string {
  return `p_${createHash('sha256').update(`soulgraph:profile:${address}`).digest('hex').slice(0, 20)}`;
}

/**
 * A first sign-in: the profile (and the invite, if any) go to the pipeline; the token is
 * issued at once, and the profile is readable as soon as the worker has written it. A
 * sign-in while another one's registration is on its way gets the same profile and
 * registers nothing: the first decides the inviter (registration-claims.ts).
 */
async function register(deps: AuthDeps, address: string, inviteCode: string | undefined, requestId: string): Promise<string> {
  const profileId = profileIdForAddress(address);
  // Like a returning user's, a later sign-in's invite code is not looked at.
  if (!(await deps.registrations.claim(profileId))) return profileId;
  const now = new Date().toISOString();
  const source = `api:${requestId}`;
  try {
    if (inviteCode !== undefined) await checkInviter(deps.ch, inviteCode, profileId);
    await deps.pipeline.enqueue(
      'profiles',
      { profileId, name: `${address.slice(0, 6)}…${address.slice(-4)}`, addresses: [address], updatedAt: now },
      source,
    );
    if (inviteCode !== undefined) {
      await deps.pipeline.enqueue('invites', { inviteeProfileId: profileId, inviterProfileId: inviteCode, invitedAt: now }, source);
    }
  } catch (error) {
    await deps.registrations.release(profileId).catch(() => {});
    throw error;
  }
  return profileId;
}

async function checkInviter(ch: ClickHouse, inviteCode: string, profileId: string): Promise<void> {
  if (inviteCode === profileId) throw new ApiError('invalidParameter', 'invalid parameter: inviteCode: a user cannot invite themselves');
  if (!(await profileExists(ch, inviteCode))) throw new ApiError('invalidParameter', 'invalid parameter: inviteCode: no profile has this id');
}
