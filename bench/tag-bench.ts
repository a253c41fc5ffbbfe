/**
 * The tag endpoint's part of `npm run bench:api` (kept apart from the rest of the bench so
 * the two evolve without conflicts): wallets the bench can sign for, registered as
 * profiles through the pipeline, tags for them in the snapshot, and their signed
 * "Access to User Tag." requests, warm (ciphertext cached) and cold (each request a new
 * (signer, domain) pair, so each one computes its ciphertext in the encryption thread).
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { bytesToHex } from '@noble/hashes/utils.js';
import type autocannon from 'autocannon';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ClickHouse } from '../shared/clickhouse/client.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import type { Config } from '../shared/config.ts';
import { publicKeyOf, randomScalar } from '../shared/tag-crypto/threshold-signatures.ts';
import { runIngest } from '../pipeline/ingest/ingest-run.ts';
import { signTagAccess } from '../sdk/tag-access-message.ts';

export const TAG_WALLETS = Number(process.env.BENCH_TAG_WALLETS ?? 200);
export const TAG_DOMAINS = Array.from({ length: 5 }, (_, i) => `tags${i}.bench.localhost`);
const TARGET_P50_MS = 5;

/** A network public key for the API (the bench encrypts only; nobody decrypts). */
export function benchNetworkKey(): string {
  return bytesToHex(publicKeyOf(randomScalar()).toBytes(true));
}

export interface TagRequests {
  warm: autocannon.Request[];
  cold: autocannon.Request[];
}

/** Registers TAG_WALLETS wallets as profiles (pipeline workers must be running), gives them tags, signs their requests. */
export async function prepareTagRequests(config: Config, ch: ClickHouse, work: string, snapshotId: number, apiKey: string): Promise<TagRequests> {
  const wallets = Array.from({ length: TAG_WALLETS }, () => privateKeyToAccount(generatePrivateKey()));
  const file = path.join(work, 'tag-wallets.jsonl');
  await writeFile(file, wallets.map((w, i) => JSON.stringify({ profileId: `p_tagbench_${i}`, name: `Tag bench ${i}`, addresses: [w.address.toLowerCase()] })).join('\n') + '\n');
  const summary = await runIngest(config, { kind: 'profiles', files: [file], format: 'canonical', chunkRows: 10_000 });
  if (summary.accepted !== TAG_WALLETS) throw new Error(`tag bench wallets: ${JSON.stringify(summary).slice(0, 300)}`);
  // Stand-in for the nightly job's profile_tags: a few categories per bench profile.
  await ch.command(sql`
    INSERT INTO profile_tags (snapshot_id, profile_id, tags)
    SELECT toUInt32(${snapshotId}), profile_id, arraySort(arraySlice(['DAO', 'DeFi', 'GameFi', 'NFT', 'Social'], 1, 1 + cityHash64(profile_id) % 5))
    FROM profiles FINAL WHERE startsWith(profile_id, 'p_tagbench_')`);
  const request = async (wallet: (typeof wallets)[number], domain: string): Promise<autocannon.Request> => {
    const { message, sig } = await signTagAccess(wallet, { domain, uri: `https://${domain}`, chainId: 1 });
    const query = new URLSearchParams({ address: wallet.address, sig, message });
    return { method: 'GET', path: `/api/v1/tag?${query}`, headers: { ApiKey: apiKey } };
  };
  const warm = await Promise.all(wallets.map((w) => request(w, TAG_DOMAINS[0]!)));
  const cold = await Promise.all(wallets.flatMap((w) => TAG_DOMAINS.slice(1).map((d) => request(w, d))));
  return { warm, cold };
}

/**
 * Latency of requests one at a time (no queueing behind other connections). Cold: each
 * request a (signer, domain) pair never asked before, so each pays for its ciphertext (two
 * pairings in the encryption thread). Warm: requests whose ciphertext is cached.
 */
export async function measureOneAtATime(apiUrl: string, requests: autocannon.Request[], count: number): Promise<{ p50: number; p99: number; n: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const request = requests[i % requests.length]!;
    const started = performance.now();
    const response = await fetch(`${apiUrl}${request.path}`, { headers: request.headers as Record<string, string> });
    await response.text();
    if (response.status !== 200) throw new Error(`tag request answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: Math.round(at(0.5) * 10) / 10, p99: Math.round(at(0.99) * 10) / 10, n: latencies.length };
}

type Latency = { p50: number; p99: number; n: number };

export function tagVerdict(warm: Latency, cold: Latency): string[] {
  return [
    `tag p50 warm cache, one at a time    ${warm.p50} ms   target < ${TARGET_P50_MS} ms  ${warm.p50 < TARGET_P50_MS ? 'MET' : 'NOT MET'}  (p99 ${warm.p99} ms over ${warm.n} requests)`,
    `tag cold cache, one at a time         p50 ${cold.p50} ms, p99 ${cold.p99} ms over ${cold.n} requests (ciphertext computed in a worker thread)`,
  ];
}

/** Asks every warm request once (8 at a time), so that the warm runs find every ciphertext cached. */
export async function prewarmTags(apiUrl: string, warm: autocannon.Request[]): Promise<void> {
  for (let i = 0; i < warm.length; i += 8) {
    await Promise.all(
      warm.slice(i, i + 8).map(async (request) => {
        const response = await fetch(`${apiUrl}${request.path}`, { headers: request.headers as Record<string, string> });
        await response.text();
        if (response.status !== 200) throw new Error(`warming tag request answered ${response.status}`);
      }),
    );
  }
}
