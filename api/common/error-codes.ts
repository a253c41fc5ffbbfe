/**
 * Every envelope code the API answers with, in one table: the HTTP status it travels
 * with and the default description. The codes of the original service are kept
 * (0, 10100-10102, 10110, 11601, 11602); the rest are ours. docs/errors.md mirrors this
 * table (a test keeps them in step).
 */
export const errorCodes = {
  success: { code: '0', status: 200, desc: 'success' },
  tokenExpired: { code: '10100', status: 401, desc: 'token expired' },
  tokenInvalid: { code: '10101', status: 401, desc: 'token invalid' },
  tokenIssuerInvalid: { code: '10102', status: 401, desc: 'token issuer invalid' },
  tokenMissing: { code: '10103', status: 401, desc: 'token missing' },
  signInInvalid: { code: '10104', status: 401, desc: 'Sign-In with Ethereum message or signature invalid' },
  nonceInvalid: { code: '10105', status: 401, desc: 'nonce unknown, expired or already used' },
  siweStatementInvalid: { code: '10106', status: 401, desc: 'Sign-In with Ethereum statement is not the one this endpoint requires' },
  siweExpired: { code: '10107', status: 401, desc: 'Sign-In with Ethereum message expired' },
  siweValidityInvalid: { code: '10108', status: 401, desc: 'Sign-In with Ethereum message lacks an expirationTime or is valid for too long' },
  rateLimited: { code: '10110', status: 429, desc: 'rate limited: retry after the Retry-After header' },
  apiKeyMissing: { code: '10120', status: 401, desc: 'ApiKey header missing' },
  apiKeyInvalid: { code: '10121', status: 401, desc: 'ApiKey unknown or revoked' },
  domainNotAllowed: { code: '10122', status: 403, desc: 'domain not allowed for this ApiKey' },
  signerNotUser: { code: '10123', status: 403, desc: 'the message was not signed by the user asked about' },
  invalidParameter: { code: '10200', status: 400, desc: 'invalid parameter' },
  invalidJson: { code: '10201', status: 400, desc: 'request body is not valid JSON' },
  cursorInvalid: { code: '10202', status: 400, desc: 'cursor invalid' },
  cursorExpired: { code: '10203', status: 400, desc: 'cursor expired: start again without a cursor' },
  malformedRequest: { code: '10400', status: 400, desc: 'malformed HTTP request' },
  notFound: { code: '10404', status: 404, desc: 'no such endpoint' },
  methodNotAllowed: { code: '10405', status: 405, desc: 'method not allowed' },
  unsupportedBody: { code: '10415', status: 415, desc: 'request body in an unsupported charset or encoding: send UTF-8 JSON, uncompressed or gzip' },
  headersTooLarge: { code: '10431', status: 431, desc: 'request line or headers too large' },
  internalError: { code: '10500', status: 500, desc: 'internal error' },
  serviceUnavailable: { code: '10503', status: 503, desc: 'service unavailable' },
  recommendationsPending: { code: '10504', status: 503, desc: 'recommendations for this user are being computed: retry after the Retry-After header' },
  fieldNotSupported: { code: '11601', status: 400, desc: 'requested field not supported in the current version' },
  userNotFound: { code: '11602', status: 404, desc: 'user not found' },
} as const satisfies Record<string, { code: string; status: number; desc: string }>;

export type ErrorName = keyof typeof errorCodes;
