/**
 * The API's in-memory copy of the active API keys, so that checking the ApiKey header
 * normally costs no ClickHouse round trip.
 *
 * - The copy is re-read when it is older than ttlSeconds: a revoked key stops working
 *   within ttlSeconds (APIKEY_CACHE_SECONDS), a new key starts working within it.
 * - Read ahead: once the copy is three quarters of ttlSeconds old, a lookup starts one read
 *   in the background and answers from the copy it has, so that under steady traffic no
 *   request waits for ClickHouse. Only a copy older than ttlSeconds makes lookups wait.
 * - One read at a time: concurrent lookups that find the copy stale share one read.
 * - If a read fails, the previous copy keeps serving until it is 2 x ttlSeconds old;
 *   after that lookups throw (the caller answers 503) rather than trust stale keys forever.
 *
 * - A key found once is remembered by the copy it was found in (at most one entry per
 *   active key: unknown keys are never remembered), so a caller's next requests skip the
 *   sha256 (~20 µs); the memory goes with the copy, so revocation is unchanged. That Map
 *   compares the presented key only with an entry of the same string hash, and V8 seeds
 *   string hashes per process, so its timing cannot be steered into comparing prefixes.
 *
 * Keys are found by their hash. The Map lookup is not constant-time, but what it could
 * leak through timing is how much of a hash matched, and a hash prefix brings an attacker
 * no closer to a key: finding a key with a given sha256 means guessing 192 random bits.
 * The final comparison is constant-time anyway, as defence in depth.
 */
import { timingSafeEqual } from 'node:crypto';
import { hashApiKey, parseApiKey, readActiveApiKeys, type ApiKeyRecord } from '../../shared/api-keys.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';

export interface ApiKeyCache {
  /** The active key's record, or undefined for a malformed, unknown or revoked key. Throws if keys cannot be read. */
  lookup(key: string): Promise<ApiKeyRecord | undefined>;
}

export interface ApiKeyCacheOptions {
  ttlSeconds: number;
  /** Milliseconds since the epoch; tests move time instead of sleeping. */
  now?: () => number;
}

interface KeySnapshot {
  byHash: ReadonlyMap<string, ApiKeyRecord>;
  /** Keys as presented, once found in this copy. */
  found: Map<string, ApiKeyRecord>;
  /** When the read started: a key revoked during the read counts as read at the start. */
  readAt: number;
}

/** The fraction of the ttl after which a lookup starts the next read in the background. */
const READ_AHEAD_AT = 0.75;

export function createApiKeyCache(ch: Pick<ClickHouse, 'query'>, options: ApiKeyCacheOptions): ApiKeyCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  let snapshot: KeySnapshot | undefined;
  let reading: Promise<KeySnapshot> | undefined;

  const ageOf = (s: KeySnapshot) => now() - s.readAt;

  /** A new snapshot; concurrent callers share the read in flight. */
  function freshSnapshot(): Promise<KeySnapshot> {
    reading ??= readSnapshot(ch, now())
      .then((read) => (snapshot = read))
      .finally(() => (reading = undefined));
    return reading;
  }

  async function usableSnapshot(): Promise<KeySnapshot> {
    if (snapshot && ageOf(snapshot) < ttlMs) {
      // A failed read ahead is not an error yet: the copy is still fresh, and once it is
      // not, lookups wait for a read of their own and see its error.
      if (ageOf(snapshot) >= READ_AHEAD_AT * ttlMs) freshSnapshot().catch(() => undefined);
      return snapshot;
    }
    try {
      return await freshSnapshot();
    } catch (error) {
      if (snapshot && ageOf(snapshot) < 2 * ttlMs) return snapshot;
      throw new Error('API keys cannot be read from ClickHouse and the cached copy is too old to trust', { cause: error });
    }
  }

  return {
    async lookup(key) {
      const parsed = parseApiKey(key);
      // A malformed key never costs a read: garbage in the header cannot load ClickHouse.
      if (!parsed) return undefined;
      const current = await usableSnapshot();
      const seen = current.found.get(key);
      if (seen) return seen;
      const hash = hashApiKey(key);
      const record = current.byHash.get(hash);
      if (!record || record.keyId !== parsed.keyId || !sameHash(record.keyHash, hash)) return undefined;
      current.found.set(key, record);
      return record;
    },
  };
}

async function readSnapshot(ch: Pick<ClickHouse, 'query'>, readAt: number): Promise<KeySnapshot> {
  const records = await readActiveApiKeys(ch);
  return { byHash: new Map(records.map((r) => [r.keyHash, r])), found: new Map(), readAt };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
