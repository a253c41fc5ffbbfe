/**
 * The API process's V8 heap settings, applied as it starts (startApi), so that every way
 * of launching it (npm run api, soulgraph start, docker-compose) gets them.
 *
 * Why: the API's live heap is ~45 MB, mostly libraries loaded once (viem, bullmq, siwe,
 * express, zod), and each mark-compact walks all of it: a 5–13 ms pause of the event loop,
 * plus concurrent marking on a second core. V8 sizes the old generation after each
 * mark-compact from how fast the program promotes objects into it and how fast it collects;
 * for the API it set the limit only 1.1–1.4 times above the live heap, so under load a
 * mark-compact still came every ~10 MB promoted. At half of recommend's
 * peak rate the runs that met one missed the p99 target and those that did not met it
 * (docs/benchmarks.md, "Express's per-request prototype change"). A fixed factor of 3
 * makes them several times rarer, for at most ~90 MB more heap.
 */
import v8 from 'node:v8';

/** V8 flags, as on a `node` command line. */
export const API_V8_FLAGS: readonly string[] = ['--heap-growing-percent=200'];

/** Takes effect from the next mark-compact on: V8 reads the factor each time it sets the limit. */
export function applyApiHeapSettings(): void {
  for (const flag of API_V8_FLAGS) v8.setFlagsFromString(flag);
}
