import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, rateLimitHeaders, type RateLimitDecision } from '../../api/server/rate-limit.ts';
import { freePort } from '../../shared/local-stack/free-port.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(env.config.REDIS_URL!, { enableOfflineQueue: false });
  // Until the connection is ready the limiter would count in memory (see api/server/rate-limit.ts).
  await new Promise((resolve, reject) => {
    redis.once('ready', resolve);
    redis.once('error', reject);
  });
});

afterAll(async () => {
  await redis.quit();
});

/** A limiter of 3 per minute under a prefix of this test's own, so tests do not share counts. */
function limiterOf3(name: string, warn?: (message: string) => void) {
  return createRateLimiter(redis, { defaultPerMinute: 3, keyPrefix: `${env.config.QUEUE_PREFIX}:ratelimit:${name}`, warn });
}

async function consumeTimes(times: number, consume: () => Promise<RateLimitDecision>): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < times; i++) decisions.push(await consume());
  return decisions;
}

describe('the rate limiter', () => {
  it('allows 3 requests a minute with 2, 1, 0 remaining, and refuses the 4th until the window ends', async () => {
    const limiter = limiterOf3('basic');
    const decisions = await consumeTimes(4, () => limiter.consume('0123456789ab', 'recommend'));
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 3, 2],
      [true, 3, 1],
      [true, 3, 0],
      [false, 3, 0],
    ]);
    for (const d of decisions) {
      expect(d.resetSeconds).toBeGreaterThanOrEqual(59);
      expect(d.resetSeconds).toBeLessThanOrEqual(60);
    }
  });

  it('counts endpoints and keys separately', async () => {
    const limiter = limiterOf3('separate');
    await consumeTimes(3, () => limiter.consume('aaaaaaaaaaaa', 'recommend'));
    expect((await limiter.consume('aaaaaaaaaaaa', 'recommend')).allowed).toBe(false);
    expect(await limiter.consume('aaaaaaaaaaaa', 'sbt/list')).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.consume('bbbbbbbbbbbb', 'recommend')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("applies a key's own limit, and the default for 0", async () => {
    const limiter = limiterOf3('own-limit');
    const own = await consumeTimes(6, () => limiter.consume('cccccccccccc', 'recommend', 5));
    expect(own.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(own[0]).toMatchObject({ limit: 5, remaining: 4 });
    expect(await limiter.consume('dddddddddddd', 'recommend', 0)).toMatchObject({ limit: 3, remaining: 2 });
    await expect(limiter.consume('dddddddddddd', 'recommend', -1)).rejects.toThrow(RangeError);
  });

  it('shares counts between limiters (processes) on the same Redis', async () => {
    const [first, second] = [limiterOf3('shared'), limiterOf3('shared')];
    await first.consume('eeeeeeeeeeee', 'recommend');
    await second.consume('eeeeeeeeeeee', 'recommend');
    expect(await first.consume('eeeeeeeeeeee', 'recommend')).toMatchObject({ allowed: true, remaining: 0 });
    expect((await second.consume('eeeeeeeeeeee', 'recommend')).allowed).toBe(false);
  });

  it('keeps its counts in Redis under the prefix, per key and endpoint', async () => {
    const limiter = limiterOf3('stored');
    await limiter.consume('ffffffffffff', 'recommend');
    const redisKey = `${env.config.QUEUE_PREFIX}:ratelimit:stored:ffffffffffff:recommend`;
    expect(await redis.get(redisKey)).toBe('1');
    expect(await redis.ttl(redisKey)).toBeGreaterThan(55);
  });

  it('fails open to per-process limits when Redis is unreachable, and warns', async () => {
    const unreachable = new Redis(`redis://127.0.0.1:${await freePort()}`, { enableOfflineQueue: false, lazyConnect: true });
    unreachable.on('error', () => {}); // the connection errors are expected here
    try {
      const warnings: string[] = [];
      const limiter = createRateLimiter(unreachable, { defaultPerMinute: 3, keyPrefix: 'offline', warn: (m) => warnings.push(m) });
      const decisions = await consumeTimes(4, () => limiter.consume('0123456789ab', 'recommend'));
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(warnings).toEqual(['Redis is unreachable: rate limits are counted per process until it is back']);
    } finally {
      unreachable.disconnect();
    }
  });
});

describe('rate limit headers', () => {
  it('gives limit, remaining and reset for an allowed request', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 })).toEqual({
      'RateLimit-Limit': '3',
      'RateLimit-Remaining': '2',
      'RateLimit-Reset': '60',
      'RateLimit-Policy': '3;w=60',
    });
  });

  it('adds Retry-After to a refusal', () => {
    expect(rateLimitHeaders({ allowed: false, limit: 3, remaining: 0, resetSeconds: 42 })).toEqual({
      'RateLimit-Limit': '3',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '42',
      'RateLimit-Policy': '3;w=60',
      'Retry-After': '42',
    });
  });

  it('match what the limiter decided for the 4th request', async () => {
    const limiter = limiterOf3('headers');
    const [, , , refused] = await consumeTimes(4, () => limiter.consume('0123456789ab', 'tag'));
    const headers = rateLimitHeaders(refused!);
    expect(headers['Retry-After']).toBe(headers['RateLimit-Reset']);
    expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(59);
    expect(headers['RateLimit-Remaining']).toBe('0');
  });
});
