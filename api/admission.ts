/**
 * A request's rate-limit decision, when its route reads ahead of it.
 *
 * Counting a request is a Redis round trip, and so is a recommend page. Sent one after the
 * other they cost two round trips; sent in the same tick, both are on their way at once and
 * the request waits for one round trip. So the ApiKey check of such a route only starts the
 * count (`deferAdmission`), and the route awaits `admitted` together with its first read,
 * before it acts on what it read.
 *
 * Both also leave in one write: the ApiKey check holds the connection's writes before it
 * starts the count (api/redis-writes.ts), and the route releases them once its first read is
 * issued (`readIssued`), a few microtasks later. Apart, each was a loopback write that woke
 * Redis, and when requests come one at a time those wake-ups are a large share of what a
 * request costs the server and Redis (bench:api, docs/benchmarks.md).
 *
 * The answer is the same as with the count awaited first: a refused request gets 429 and its
 * RateLimit-* headers whatever else went wrong, because the error handler awaits the
 * decision too before it answers (`admissionError`), and a request is counted whether or
 * not its token turns out to be valid.
 */
import type { Response } from 'express';
import { ApiError } from './envelope.ts';
import { rateLimitHeaders, type RateLimitDecision } from './rate-limit.ts';

/** Sets the RateLimit-* headers once decided; rejects with 10110 when refused. */
export function admit(res: Response, decision: Promise<RateLimitDecision>): Promise<void> {
  return decision.then((d) => {
    const headers = rateLimitHeaders(d);
    res.set(headers);
    if (!d.allowed) throw new ApiError('rateLimited', undefined, headers);
  });
}

/** What a route that reads ahead of its admission is given. */
export interface ReadAhead {
  /** Resolves once the request is admitted; rejects with 10110 when it is refused. */
  admitted: Promise<void>;
  /** Call right after issuing the first read: the count and the read leave together. */
  readIssued(): void;
}

/**
 * Keeps the pending decision on the response for the route and the error handler to await,
 * with `readIssued` for the route to call once its first read is on its way.
 */
export function deferAdmission(res: Response, ahead: ReadAhead): void {
  // Awaited later (or never, if the response fails first): not an unhandled rejection.
  ahead.admitted.catch(() => {});
  res.locals.readAhead = ahead;
}

/** The deferred admission; a request whose count was already awaited has nothing to wait for or release. */
export function readAhead(res: Response): ReadAhead {
  return (res.locals.readAhead as ReadAhead | undefined) ?? ADMITTED;
}

const ADMITTED: ReadAhead = { admitted: Promise.resolve(), readIssued: () => {} };

/** Resolves once the request is admitted; rejects with 10110 when it is refused. */
export function admitted(res: Response): Promise<void> {
  return readAhead(res).admitted;
}

/**
 * The error the response must carry: a refusal outranks whatever else failed, as it did when
 * the count came first; any other failure of the count itself is reported as it is.
 */
export async function admissionError(res: Response, error: unknown): Promise<unknown> {
  try {
    await admitted(res);
    return error;
  } catch (refusal) {
    return refusal;
  }
}
