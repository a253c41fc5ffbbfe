/**
 * The ApiKey header, checked against the in-memory key cache (no ClickHouse round trip
 * per request), then the key's rate limit for this endpoint: the request is counted before
 * anything else about it is checked, so a request with a bad token counts too. Sets
 * res.locals.apiKey and the RateLimit-* headers; refuses with 10110 past the limit.
 */
import type { RequestHandler } from 'express';
import type { ApiKeyRecord } from '../../../shared/api-keys.ts';
import type { ApiKeyCache } from '../api-key-cache.ts';
import { ApiError } from '../../common/envelope.ts';
import { rateLimitHeaders, type RateLimiter } from '../rate-limit.ts';

export function requireApiKey(keys: ApiKeyCache, limiter: RateLimiter, endpoint: string): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('ApiKey');
    if (!key) throw new ApiError('apiKeyMissing');
    const record = await keys.lookup(key);
    if (!record) throw new ApiError('apiKeyInvalid');
    const decision = await limiter.consume(record.keyId, endpoint, record.rateLimitPerMinute || undefined);
    const headers = rateLimitHeaders(decision);
    res.set(headers);
    if (!decision.allowed) throw new ApiError('rateLimited', undefined, headers);
    res.locals.apiKey = record satisfies ApiKeyRecord;
    next();
  };
}
