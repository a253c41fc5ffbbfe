/**
 * The ApiKey header, checked against the in-memory key cache (no ClickHouse round trip
 * per request), then the key's rate limit for this endpoint. Sets res.locals.apiKey.
 */
import type { RequestHandler } from 'express';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import type { ApiKeyCache } from '../api-key-cache.ts';
import { ApiError } from '../envelope.ts';
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
