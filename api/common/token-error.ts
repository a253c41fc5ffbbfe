/**
 * The one error type of the token layer. Routes map `reason` to an envelope code, so the
 * set is closed; the message is for logs and never contains a token or a signature.
 */
import { errors as joseErrors } from 'jose';

export const TOKEN_ERROR_REASONS = [
  'expired',
  'invalid',
  'issuer',
  'audience',
  'not-yet-valid',
  'nonce',
  'domain',
  'chain',
  'signature',
  'statement',
] as const;

export type TokenErrorReason = (typeof TOKEN_ERROR_REASONS)[number];

export class TokenError extends Error {
  override name = 'TokenError';
  readonly reason: TokenErrorReason;

  constructor(reason: TokenErrorReason, message: string = defaultMessage(reason), options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export function isTokenError(error: unknown, reason?: TokenErrorReason): error is TokenError {
  return error instanceof TokenError && (reason === undefined || error.reason === reason);
}

function defaultMessage(reason: TokenErrorReason): string {
  return `token rejected: ${reason}`;
}

/**
 * The TokenError for a failure of jose's jwtVerify. A TokenError thrown by our own key
 * lookup passes through; anything unrecognised is 'invalid' (fail closed).
 */
export function tokenErrorFromJose(error: unknown): TokenError {
  if (error instanceof TokenError) return error;
  if (error instanceof joseErrors.JWTExpired) return new TokenError('expired', 'token expired', { cause: error });
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const reason = CLAIM_REASONS[error.claim] ?? 'invalid';
    return new TokenError(reason, `token claim "${error.claim}" rejected: ${error.reason}`, { cause: error });
  }
  return new TokenError('invalid', 'token is malformed or its signature does not verify', { cause: error });
}

const CLAIM_REASONS: Record<string, TokenErrorReason> = { iss: 'issuer', aud: 'audience', nbf: 'not-yet-valid' };
