/**
 * The ApiKey header, checked against the in-memory key cache (no ClickHouse round trip
 * per request), then the key's rate limit for this endpoint. Sets res.locals.apiKey.
 *
 * With `readsAhead`, the count is only started here and the route awaits the decision with
 * its own first Redis read, so that both travel in one round trip (api/admission.ts).
 */
import type { RequestHandler } from 'express';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import { admit, deferAdmission } from '../admission.ts';
import type { ApiKeyCache } from '../api-key-cache.ts';
import { ApiError } from '../envelope.ts';
import type { RateLimiter } from '../rate-limit.ts';

export function requireApiKey(keys: ApiKeyCache, limiter: RateLimiter, endpoint: string, options: { readsAhead?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('ApiKey');
    if (!key) throw new ApiError('apiKeyMissing');
    const record = await keys.lookup(key);
    if (!record) throw new ApiError('apiKeyInvalid');
    const admission = admit(res, limiter.consume(record.keyId, endpoint, record.rateLimitPerMinute || undefined));
    if (options.readsAhead) deferAdmission(res, admission);
    else await admission;
    res.locals.apiKey = record satisfies ApiKeyRecord;
    next();
  };
}
