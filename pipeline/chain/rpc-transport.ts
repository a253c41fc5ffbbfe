/**
 * The JSON-RPC transport of one chain source: viem http transports, one per RPC URL, each
 * batching the requests made in the same tick into one JSON-RPC batch and retrying rate
 * limits (429), timeouts and 5xx with exponential backoff; a fallback transport moves on to
 * the next URL when one keeps failing, and back to the first after it recovers.
 */
import { fallback, http, type Transport } from 'viem';

export interface RpcTransportOptions {
  timeoutMs: number;
  /** Requests per JSON-RPC batch. */
  batchSize?: number;
  /** Retries per URL (delays 250 ms, 500 ms, 1 s, ...). */
  retryCount?: number;
  retryDelayMs?: number;
}

export function rpcTransport(urls: readonly string[], options: RpcTransportOptions): Transport {
  if (urls.length === 0) throw new Error('a chain source needs at least one RPC URL');
  const perUrl = urls.map((url) =>
    http(url, {
      batch: { batchSize: options.batchSize ?? 100, wait: 0 },
      timeout: options.timeoutMs,
      retryCount: options.retryCount ?? 3,
      retryDelay: options.retryDelayMs ?? 250,
    }),
  );
  // One URL: no fallback layer (its own retries are the whole policy).
  return perUrl.length === 1 ? perUrl[0]! : fallback(perUrl, { rank: false, retryCount: 1, retryDelay: 500 });
}
