/**
 * Holding a Redis connection's writes for a moment, so that commands issued meanwhile leave
 * in one write (one system call, one read for Redis) instead of one write each.
 *
 * Why: recommend sends two commands per request (its rate-limit count and its page), issued
 * a few microtasks apart. Sent apart, each is a loopback TCP write that wakes Redis; when
 * requests arrive one at a time (half of recommend's peak rate in bench:api) those wake-ups
 * are a large share of a request's cost on the server's and Redis's cores.
 */
import type { Redis } from 'ioredis';

/**
 * Holds `redis`'s writes until the returned function is called, and at the latest until
 * the event loop's check phase (setImmediate), so a request that never sends its second
 * command cannot hold back anyone's.
 */
export function holdWrites(redis: Redis): () => void {
  const stream = redis.stream;
  stream.cork();
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    stream.uncork();
  };
  setImmediate(release);
  return release;
}
