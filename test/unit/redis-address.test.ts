import { describe, it, expect } from 'vitest';
import { addressOf, redisConnection } from '../../shared/redis.ts';

describe('addressOf', () => {
  it('reads host and port', () => {
    expect(addressOf('redis://cache.internal:6380')).toEqual({ host: 'cache.internal', port: 6380 });
  });

  it('defaults the port to 6379', () => {
    expect(addressOf('redis://127.0.0.1')).toEqual({ host: '127.0.0.1', port: 6379 });
  });

  it('reads the database number from the path', () => {
    expect(addressOf('redis://127.0.0.1:6379/3')).toEqual({ host: '127.0.0.1', port: 6379, db: 3 });
    expect(addressOf('redis://127.0.0.1:6379/0')).toEqual({ host: '127.0.0.1', port: 6379, db: 0 });
  });

  it('leaves the database out when the path is / or empty', () => {
    expect(addressOf('redis://127.0.0.1:6379/')).toEqual({ host: '127.0.0.1', port: 6379 });
  });

  it.each([['redis://127.0.0.1:6379/abc'], ['redis://127.0.0.1:6379/1/2'], ['redis://127.0.0.1:6379/-1']])(
    'rejects %s, whose path is not a database number',
    (url) => {
      expect(() => addressOf(url)).toThrow('REDIS_URL database must be a number, as in redis://host:6379/0');
    },
  );

  it('reads a password without a username', () => {
    expect(addressOf('redis://:s3cret@cache:6379')).toEqual({ host: 'cache', port: 6379, password: 's3cret' });
  });

  it('reads a username and password, percent-decoded', () => {
    expect(addressOf('redis://app%40team:p%40ss%3Aword@cache:6379/1')).toEqual({
      host: 'cache',
      port: 6379,
      username: 'app@team',
      password: 'p@ss:word',
      db: 1,
    });
  });

  it('strips the brackets from an IPv6 host', () => {
    expect(addressOf('redis://[::1]:6379')).toEqual({ host: '::1', port: 6379 });
  });

  it('turns on TLS for rediss://', () => {
    expect(addressOf('rediss://cache.example.com:6380')).toEqual({ host: 'cache.example.com', port: 6380, tls: {} });
  });

  it('does not turn on TLS for redis://', () => {
    expect(addressOf('redis://cache.example.com')).not.toHaveProperty('tls');
  });

  it.each([['http://127.0.0.1:6379'], ['tcp://127.0.0.1:6379'], ['unix:///tmp/redis.sock']])(
    'throws on the non-redis URL %s',
    (url) => {
      expect(() => addressOf(url)).toThrow('REDIS_URL must start with redis:// or rediss://');
    },
  );

  it('throws on text that is not a URL at all', () => {
    expect(() => addressOf('127.0.0.1:6379 ')).toThrow();
  });
});

describe('redisConnection', () => {
  const config = { REDIS_URL: 'redis://:pw@cache:6390/2' };

  it('gives a worker maxRetriesPerRequest: null, so it waits for Redis forever', () => {
    expect(redisConnection(config, 'worker')).toEqual({
      host: 'cache',
      port: 6390,
      password: 'pw',
      db: 2,
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
    });
  });

  it('makes a producer fail fast: no offline queue, a few retries, a connect timeout', () => {
    const options = redisConnection(config, 'producer');
    expect(options).toEqual({
      host: 'cache',
      port: 6390,
      password: 'pw',
      db: 2,
      maxRetriesPerRequest: 3,
      enableOfflineQueue: false,
      connectTimeout: 5_000,
    });
  });

  it('throws when REDIS_URL is not set', () => {
    expect(() => redisConnection({ REDIS_URL: undefined }, 'worker')).toThrow(
      'REDIS_URL is not set and no local stack was started',
    );
  });
});
