/**
 * Token failures (api/auth) as envelope errors: the original codes 10100-10102 where
 * they fit. Anything else (an unreachable JWKS or RPC) is not the caller's fault and goes
 * on as it is, to be answered as a server error rather than as a bad token.
 */
import { ApiError } from './envelope.ts';
import { TokenError } from './token-error.ts';

export function tokenApiError(error: unknown): unknown {
  if (!(error instanceof TokenError)) return error;
  switch (error.reason) {
    case 'expired':
      return new ApiError('tokenExpired');
    case 'issuer':
      return new ApiError('tokenIssuerInvalid');
    case 'audience':
      return new ApiError('tokenInvalid', 'token invalid: not meant for this service (audience)');
    case 'not-yet-valid':
      return new ApiError('tokenInvalid', 'token invalid: not valid yet');
    default:
      return new ApiError('tokenInvalid');
  }
}

/**
 * Failures of a Sign-In with Ethereum message (POST /api/v1/auth/address-token): the
 * message is not a token, so its problems answer 10104, except the nonce (10105) and a
 * domain the ApiKey does not allow (10122).
 */
export function siweApiError(error: unknown): unknown {
  if (!(error instanceof TokenError)) return error;
  switch (error.reason) {
    case 'nonce':
      return new ApiError('nonceInvalid');
    case 'domain':
      return new ApiError('domainNotAllowed');
    case 'expired':
      return new ApiError('signInInvalid', 'Sign-In with Ethereum: the message has expired');
    case 'not-yet-valid':
      return new ApiError('signInInvalid', 'Sign-In with Ethereum: the message is not valid yet (issuedAt or notBefore in the future)');
    case 'chain':
      return new ApiError('signInInvalid', 'Sign-In with Ethereum: chain not supported');
    case 'signature':
      return new ApiError('signInInvalid', 'Sign-In with Ethereum: the signature does not match the message address');
    default:
      return new ApiError('signInInvalid', `Sign-In with Ethereum: ${error.message}`);
  }
}
