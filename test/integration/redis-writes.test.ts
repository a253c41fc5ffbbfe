/**
 * api/redis-writes.ts against the real Redis: what leaves the connection's socket while
 * its writes are held, counted at the socket (net.Socket's _write and _writev).
 */
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdWrites } from '../../api/redis-writes.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let redis: Redis;
const key = (name: string) => `${env.config.QUEUE_PREFIX}:redis-writes-test:${name}`;

/** Each system-call-level write the socket makes from now on: how many commands it carried. */
function countWrites(socket: Socket): { writes: number[]; stop(): void } {
  const writes: number[] = [];
  const target = socket as Socket & { _write: (...args: unknown[]) => void; _writev: (chunks: unknown[], cb: unknown) => void };
  const [write, writev] = [target._write, target._writev];
  target._write = function (...args: unknown[]) {
    writes.push(1);
    return write.apply(this, args);
  };
  target._writev = function (chunks: unknown[], cb: unknown) {
    writes.push(chunks.length);
    return writev.call(this, chunks, cb);
  };
  return {
    writes,
    stop() {
      [target._write, target._writev] = [write, writev];
    },
  };
}

beforeAll(async () => {
  redis = new Redis(env.config.REDIS_URL!, { enableAutoPipelining: false });
  await redis.ping();
});

afterAll(async () => {
  await redis.quit();
});

describe('holding a Redis connection’s writes', () => {
  it('sends the commands issued while held in one write, and answers each', async () => {
    const counted = countWrites(redis.stream as Socket);
    try {
      const release = holdWrites(redis);
      const incremented = redis.incr(key('count'));
      // Issued a few microtasks later, as recommend issues its page after its count.
      await Promise.resolve();
      const read = redis.get(key('count'));
      release();
      expect(await Promise.all([incremented, read])).toEqual([1, '1']);
      expect(counted.writes).toEqual([2]);
    } finally {
      counted.stop();
    }
  });

  it('sends each command as it is issued when nothing holds them', async () => {
    const counted = countWrites(redis.stream as Socket);
    try {
      await Promise.all([redis.set(key('plain'), 'a'), redis.get(key('plain'))]);
      expect(counted.writes).toEqual([1, 1]);
    } finally {
      counted.stop();
    }
  });

  it('lets the held commands go by the end of the event-loop turn when nobody releases them', async () => {
    const counted = countWrites(redis.stream as Socket);
    try {
      holdWrites(redis);
      const answered = redis.set(key('forgotten'), 'b');
      expect(counted.writes).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(counted.writes).toEqual([1]);
      expect(await answered).toBe('OK');
    } finally {
      counted.stop();
    }
  });

  it("releases once: an earlier holder's end-of-turn release does not cut short a later hold", async () => {
    const counted = countWrites(redis.stream as Socket);
    try {
      const first = holdWrites(redis);
      first();
      // Runs after the first hold's end-of-turn release and before the second's.
      const between = new Promise<number[]>((resolve) => setImmediate(() => resolve([...counted.writes])));
      const second = holdWrites(redis);
      const answered = redis.set(key('twice'), 'c');
      expect(await between).toEqual([]);
      second();
      expect(counted.writes).toEqual([1]);
      expect(await answered).toBe('OK');
    } finally {
      counted.stop();
    }
  });
});
