/**
 * An open-loop load generator for latency at a given rate: request i is due at
 * start + i / rate, evenly spaced, whatever the answers before it did, and its latency is
 * measured from when it was due, not from when a socket was free to send it. A server that
 * stalls therefore shows every request the stall delayed (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it lets each connection send its share back to back
 * at the start of every second and then idle (bursts at full concurrency, not a rate), and
 * its coordinated-omission correction back-fills one synthetic sample per millisecond of
 * every response (it passes 1 / requests-per-second, rounded up to 1, as the interval in
 * ms), so a handful of slow answers decide its p99.
 *
 * Runs in a worker thread of its own, so that it does not share the servers' event loop, and
 * speaks HTTP/1.1 over raw keep-alive sockets (bench/raw-http-client.ts), to take as little of
 * the shared machine as it can.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import * as hdr from 'hdr-histogram-js';
import { RawConnection, serializeRequest, type RawRequest } from './raw-http-client.ts';

export interface PacedLoadOptions {
  url: string;
  /** Cycled through in order. */
  requests: RawRequest[];
  /** Requests per second, evenly spaced. */
  rate: number;
  seconds: number;
  /** Most requests in flight at once (keep-alive sockets). */
  sockets: number;
}

export interface PacedLoadResult {
  rate: number;
  sent: number;
  /** Answers per second over the run. */
  achievedRate: number;
  non2xx: number;
  errors: number;
  /** Milliseconds from when each request was due to its last byte. */
  latency: { p50: number; p90: number; p99: number; max: number };
}

/** Runs the load in a worker thread and resolves with its result. */
export function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./paced-load.worker.js', import.meta.url), { workerData: options });
    worker.once('message', (result: PacedLoadResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`paced load worker exited with ${code}`));
    });
  });
}

async function run(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const target = new URL(options.url);
  const requests = options.requests.map((request) => serializeRequest(target.host, request));
  const connections = Array.from({ length: options.sockets }, () => new RawConnection(target.hostname, Number(target.port)));
  /** Requests due while every connection was busy, in order; each leaves on the next free one. */
  const waiting: number[] = [];
  const total = Math.round(options.rate * options.seconds);
  // Microseconds, to three significant digits.
  const latencies = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
  let sent = 0;
  let answered = 0;
  let non2xx = 0;
  let errors = 0;
  // Connected before the first request is due: a client of a running API holds its
  // keep-alive sockets already, and 32 connection set-ups in the first milliseconds were
  // a stall of the measurement's own making.
  await Promise.all(connections.map((connection) => connection.connect()));
  const start = performance.now();
  const dueAt = (i: number) => start + (i * 1000) / options.rate;

  const sendOn = (connection: RawConnection, i: number) => {
    connection.send(requests[i % requests.length]!, ({ status }) => {
      if (status === 0) errors++;
      else if (status < 200 || status >= 300) non2xx++;
      settle(dueAt(i));
      const next = waiting.shift();
      if (next !== undefined) sendOn(connection, next);
    });
  };
  const send = (i: number) => {
    const free = connections.find((connection) => !connection.busy);
    if (free) sendOn(free, i);
    else waiting.push(i);
  };

  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const settle = (due: number) => {
    latencies.recordValue(Math.round((performance.now() - due) * 1000));
    if (++answered === total) done();
  };

  // A 1 ms tick sends whatever has fallen due; a late tick sends the backlog at once, and
  // those requests' latency still counts from when they were due.
  const ticker = setInterval(() => {
    const now = performance.now();
    while (sent < total && dueAt(sent) <= now) send(sent++);
    if (sent === total) clearInterval(ticker);
  }, 1);
  await finished;
  const elapsedSeconds = (performance.now() - start) / 1000;
  for (const connection of connections) connection.close();
  const ms = (us: number) => Math.round(us / 100) / 10;
  return {
    rate: options.rate,
    sent,
    achievedRate: Math.round(answered / elapsedSeconds),
    non2xx,
    errors,
    latency: { p50: ms(latencies.getValueAtPercentile(50)), p90: ms(latencies.getValueAtPercentile(90)), p99: ms(latencies.getValueAtPercentile(99)), max: ms(latencies.maxValue) },
  };
}

if (!isMainThread && parentPort) {
  parentPort.postMessage(await run(workerData as PacedLoadOptions));
}
