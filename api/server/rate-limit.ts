/**
 * Requests per minute per API key and endpoint, counted in Redis so that every API
 * process shares one count (fixed 60 s windows, rate-limiter-flexible's RateLimiterRedis).
 *
 * When Redis is unreachable the limiter fails OPEN, to per-process limits: each limiter
 * is insured by a RateLimiterMemory with the same limit, so an outage of Redis neither
 * takes the API down (failing closed would refuse every request) nor removes the limit
 * altogether (a client gets at most limit x processes per minute). The switch is logged
 * through `warn`, at most once a minute.
 *
 * The Redis client should be created with `enableOfflineQueue: false` (a request must not
 * wait for a reconnect) and a `commandTimeout` (a hung Redis then also falls back). Until
 * the client is 'ready' requests are counted in memory too, so the API should wait for
 * 'ready' before it starts listening.
 */
import type { RedisClient } from '../../shared/redis.ts';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 60;
const FALLBACK_WARNING_INTERVAL_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** Seconds until the current window ends and the count starts again. */
  resetSeconds: number;
}

export interface RateLimiterOptions {
  /** RATE_LIMIT_PER_MINUTE: for keys without a limit of their own. */
  defaultPerMinute: number;
  /** Redis key prefix, e.g. `${QUEUE_PREFIX}:ratelimit`, so deployments sharing a Redis do not share counts. */
  keyPrefix: string;
  /** Called (at most once a minute) while Redis is unreachable and limits are per process. */
  warn?: (message: string) => void;
}

export interface RateLimiter {
  /** Counts one request; `perMinute` undefined or 0 means the default limit. */
  consume(apiKeyId: string, endpoint: string, perMinute?: number): Promise<RateLimitDecision>;
}

export function createRateLimiter(redis: RedisClient, options: RateLimiterOptions): RateLimiter {
  const limiters = new Map<number, RateLimiterRedis>();
  const warnFallback = throttled(FALLBACK_WARNING_INTERVAL_MS, () =>
    options.warn?.('Redis is unreachable: rate limits are counted per process until it is back'),
  );

  /** One limiter per distinct limit: rate-limiter-flexible fixes `points` per instance. */
  function limiterFor(points: number): RateLimiterRedis {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: redis,
        // Same prefix for every limit: counts live at `${keyPrefix}:${apiKeyId}:${endpoint}`
        // whatever the limit, so changing a key's limit does not reset its window.
        keyPrefix: options.keyPrefix,
        points,
        duration: WINDOW_SECONDS,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackLimiter({ keyPrefix: options.keyPrefix, points, duration: WINDOW_SECONDS }, warnFallback),
      });
      limiters.set(points, limiter);
    }
    return limiter;
  }

  return {
    async consume(apiKeyId, endpoint, perMinute) {
      const limit = limitOf(perMinute, options.defaultPerMinute);
      try {
        return decision(true, limit, await limiterFor(limit).consume(`${apiKeyId}:${endpoint}`));
      } catch (refusal) {
        // A refusal rejects with a RateLimiterRes; anything else is a bug, not a limit.
        if (refusal instanceof RateLimiterRes) return decision(false, limit, refusal);
        throw refusal;
      }
    },
  };
}

/** The IETF draft's RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers-06), and Retry-After when refused. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${decision.limit};w=${WINDOW_SECONDS}`,
    ...(decision.allowed ? {} : { 'Retry-After': String(Math.max(1, decision.resetSeconds)) }),
  };
}

function limitOf(perMinute: number | undefined, defaultPerMinute: number): number {
  const limit = perMinute === undefined || perMinute === 0 ? defaultPerMinute : perMinute;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a rate limit must be a whole number of at least 1, not ${limit}`);
  return limit;
}

function decision(allowed: boolean, limit: number, res: RateLimiterRes): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: allowed ? res.remainingPoints : 0,
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/** The in-process limiter used while Redis is unreachable; says so when it is used. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterAbstract['consume']>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(...args);
  }
}

function throttled(intervalMs: number, run: () => void): () => void {
  let last = -Infinity;
  return () => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    run();
  };
}
