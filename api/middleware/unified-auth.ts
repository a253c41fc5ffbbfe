/** `Authorization: Bearer <unified token>`: the caller's profile. Sets res.locals.caller. */
import type { RequestHandler } from 'express';
import type { Config } from '../../shared/config.ts';
import { ApiError } from '../envelope.ts';
import type { SigningKeys } from '../tokens/signing-keys.ts';
import { verifyUnifiedToken } from '../tokens/unified-token.ts';
import { tokenApiError } from '../token-errors.ts';

export interface Caller {
  profileId: string;
  address: string;
}

/** The token of a `Bearer <token>` header, or 10103 naming the header it should be in. */
export function bearerToken(header: string | undefined, name = 'Authorization'): string {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match) throw new ApiError('tokenMissing', `token missing: send ${name}: Bearer <token>`);
  return match[1]!;
}

export function requireUnifiedToken(keys: SigningKeys, config: Config): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.get('Authorization'));
    try {
      res.locals.caller = (await verifyUnifiedToken(keys, config, token)) satisfies Caller;
    } catch (error) {
      throw tokenApiError(error);
    }
    next();
  };
}
