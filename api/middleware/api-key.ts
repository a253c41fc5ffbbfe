/**
 * The ApiKey header, checked against the in-memory key cache (no ClickHouse round trip
 * per request), then the key's rate limit for this endpoint. Sets res.locals.apiKey.
 *
 * With `readsAheadOn` (the Redis connection that both the limiter and the route's first read
 * use), the count is only started here and the route awaits the decision with its own first
 * read, so that both travel in one write and one round trip (api/admission.ts).
 */
import type { Redis } from 'ioredis';
import type { RequestHandler } from 'express';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import { admit, deferAdmission } from '../admission.ts';
import type { ApiKeyCache } from '../api-key-cache.ts';
import { ApiError } from '../envelope.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { holdWrites } from '../redis-writes.ts';

export function requireApiKey(keys: ApiKeyCache, limiter: RateLimiter, endpoint: string, options: { readsAheadOn?: Redis } = {}): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('ApiKey');
    if (!key) throw new ApiError('apiKeyMissing');
    const record = await keys.lookup(key);
    if (!record) throw new ApiError('apiKeyInvalid');
    const count = () => admit(res, limiter.consume(record.keyId, endpoint, record.rateLimitPerMinute || undefined));
    if (options.readsAheadOn) {
      // Held before the count is issued, so that the count waits for the route's read.
      const readIssued = holdWrites(options.readsAheadOn);
      deferAdmission(res, { admitted: count(), readIssued });
    } else {
      await count();
    }
    res.locals.apiKey = record satisfies ApiKeyRecord;
    next();
  };
}
