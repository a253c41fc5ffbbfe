/**
 * The authorization of a tag request: an "Access to User Tag." Sign-In with Ethereum
 * message and its signature, verified in full (shared/siwe) against the ApiKey's domains,
 * the supported chains and TAG_MESSAGE_MAX_VALIDITY_SECONDS. Failures become envelope
 * errors here.
 *
 * A message is usually sent many times while it is valid (pages, retries, several
 * identifiers), and recovering its signer costs ~5 ms of CPU: a verified (message,
 * signature) pair is remembered until it expires (at most MEMO_MS), and on a repeat only
 * what can change is checked again: the time, and the domain against this request's ApiKey.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../shared/config.ts';
import { SiweError, verifySiweMessage, type SignatureVerifierClient, type VerifiedSiwe } from '../../shared/siwe/siwe-message-verification.ts';
import { TAG_ACCESS_STATEMENT } from '../../shared/tag-crypto/access-conditions.ts';
import { ApiError } from '../common/envelope.ts';
import { ExpiringMemo } from '../common/expiring-memo.ts';
import { siweApiError } from '../common/token-errors.ts';
import { TokenError } from '../common/token-error.ts';

export interface TagAccessVerifier {
  /** The verified message (signer lowercase), or an ApiError. */
  verify(message: string, signature: string, allowedDomains: readonly string[]): Promise<VerifiedSiwe>;
}

/** Smart-wallet (EIP-1271) answers can change with the wallet's owners: remember nothing for long. */
const MEMO_MS = 10 * 60_000;
const MEMO_ENTRIES = 50_000;

export function createTagAccessVerifier(
  config: Pick<Config, 'CHAIN_NAMES' | 'TAG_MESSAGE_MAX_VALIDITY_SECONDS'>,
  signatureClient: SignatureVerifierClient | undefined,
  now: () => number = Date.now,
): TagAccessVerifier {
  const memo = new ExpiringMemo<VerifiedSiwe>(MEMO_ENTRIES, now);
  return {
    async verify(message, signature, allowedDomains) {
      const memoKey = createHash('sha256').update(message).update('\0').update(signature).digest('base64');
      const remembered = memo.get(memoKey);
      if (remembered) {
        if (!allowedDomains.some((d) => d.toLowerCase() === remembered.domain)) throw tagAccessApiError(new SiweError('domain', 'domain'));
        if (remembered.expirationTime !== undefined && remembered.expirationTime <= now()) throw tagAccessApiError(new SiweError('expired', 'expired'));
        return remembered;
      }
      const verified = await verifySiweMessage({
        message,
        signature,
        allowedDomains,
        expectedStatement: TAG_ACCESS_STATEMENT,
        maxValidityMs: config.TAG_MESSAGE_MAX_VALIDITY_SECONDS * 1000,
        supportedChainIds: [...config.CHAIN_NAMES.keys()],
        publicClient: signatureClient,
        now: new Date(now()),
      }).catch((error: unknown) => {
        throw tagAccessApiError(error);
      });
      memo.set(memoKey, verified, Math.min(verified.expirationTime ?? 0, now() + MEMO_MS));
      return verified;
    },
  };
}

/**
 * SIWE failures of the tag endpoint: its own codes for what only it requires (statement,
 * bounded expiry), the login's answers for the rest; anything else (an unreachable RPC)
 * goes on as a server error.
 */
export function tagAccessApiError(error: unknown): unknown {
  if (!(error instanceof SiweError)) return error;
  switch (error.reason) {
    case 'statement':
      return new ApiError('siweStatementInvalid', `Sign-In with Ethereum: the statement must be exactly "${TAG_ACCESS_STATEMENT}"`);
    case 'expired':
      return new ApiError('siweExpired');
    case 'validity':
      return new ApiError('siweValidityInvalid', `Sign-In with Ethereum: ${error.message}`);
    default:
      return siweApiError(new TokenError(error.reason, error.message));
  }
}
