/**
 * Sign-In with Ethereum (EIP-4361) login: a signed message proves control of an address
 * to one of our domains, once (its nonce is single-use), within its validity window.
 * The message checks are shared (shared/siwe/siwe-message-verification.ts); this adds the
 * nonce and speaks TokenError.
 *
 * Every check that can fail runs before the nonce is consumed, so a rejected attempt
 * (wrong domain, clock skew, a bad signature) leaves the user's nonce usable for a retry.
 */
import { SiweError, verifySiweMessage, type SignatureVerifierClient } from '../../shared/siwe/siwe-message-verification.ts';
import type { NonceStore } from './siwe-nonces.ts';
import { TokenError } from '../common/token-error.ts';

export interface SiweLoginRequest {
  /** The EIP-4361 message exactly as signed. */
  message: string;
  signature: string;
  /** Hosts (with port if any) the message may name as its `domain`; compared case-insensitively. */
  allowedDomains: readonly string[];
  nonces: Pick<NonceStore, 'consume'>;
  now?: Date;
  /** When given, the message's chain id must be one of these. */
  supportedChainIds?: readonly number[];
  /** When given, signatures are checked through it, which also accepts smart-wallet signatures. */
  publicClient?: SignatureVerifierClient;
  /** When given, the message's statement must equal it. */
  expectedStatement?: string;
}

export interface SiweLogin {
  /** Lowercase 0x address. */
  address: string;
  chainId: number;
  /** The message's domain (lowercase), one of allowedDomains: what the user signed in to. */
  domain: string;
}

export async function verifySiweLogin(request: SiweLoginRequest): Promise<SiweLogin> {
  const verified = await verifySiweMessage(request).catch((error: unknown) => {
    throw error instanceof SiweError ? new TokenError(error.reason === 'validity' ? 'invalid' : error.reason, error.message, { cause: error }) : error;
  });
  // Last: only an otherwise valid login may spend the nonce.
  if (!(await request.nonces.consume(verified.nonce))) {
    throw new TokenError('nonce', 'SIWE nonce unknown, expired or already used');
  }
  return { address: verified.address, chainId: verified.chainId, domain: verified.domain };
}
