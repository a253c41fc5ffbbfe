/**
 * What the API faults are done to: a generated world ingested and materialized (snapshot 1)
 * by a workers process, the API in a process of its own, an ApiKey, and the requests
 * clients send: recommend (a unified token each), SBT lists, and signed tag requests of
 * wallets registered as profiles.
 */
import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { bytesToHex } from '@noble/hashes/utils.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { loadSigningKeys } from '../api/auth/signing-keys.ts';
import { issueUnifiedToken } from '../api/auth/unified-token.ts';
import { mintApiKey, type ApiKeyRow } from '../shared/api-keys.ts';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { freePort } from '../shared/local-stack/free-port.ts';
import type { KindName } from '../shared/records/kinds.ts';
import { generateSigningKeyJwk } from '../shared/signing-key-jwk.ts';
import { publicKeyOf, randomScalar } from '../shared/tag-crypto/threshold-signatures.ts';
import { generateWorld } from '../pipeline/generate/world-generator.ts';
import { runIngest } from '../pipeline/ingest/ingest-run.ts';
import { signTagAccess } from '../sdk/tag-access-message.ts';
import { enqueueRun, watchRun, type RunView } from '../pipeline/materialize/run/run-watch.ts';
import type { ChaosStack, ScenarioEnvironment } from './chaos-stack.ts';
import { call, OK, type ApiRequest } from './client-load.ts';
import { workersServing } from './ingest-queue.ts';
import { startApiProcess, startSoulgraph, stopChild, waitFor, type Child } from './processes.ts';

const KINDS: KindName[] = ['profiles', 'follows', 'social-follows', 'nft-collections', 'nft-transfers', 'sbt-issuers', 'sbt-mints'];
const CALLERS = 100;
const TAG_WALLETS = 20;
const DOMAIN = 'chaos.localhost';
const RUN_LIMIT_MS = 300_000;

export interface ServedWorld {
  scenario: ScenarioEnvironment;
  apiUrl: string;
  api: Child;
  /** The workers process running now (ingestion and materialization). */
  workers(): Child;
  startWorkers(): Promise<Child>;
  requests: ApiRequest[];
  /** One recommend request per caller (limit 5: answers carry a cursor naming their snapshot). */
  recommendRequests: ApiRequest[];
  /** Enqueues a materialization run; its job id. */
  enqueueRun(): Promise<string>;
  watchRun(runId: string, onView?: (view: RunView) => void): Promise<RunView>;
  newestReadySnapshot(): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startServedWorld(stack: ChaosStack, profiles: number): Promise<ServedWorld> {
  const scenario = await stack.scenarioEnvironment('served', {
    API_SIGNING_KEYS: JSON.stringify([await generateSigningKeyJwk('chaos')]),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    // The API only encrypts tags here; nobody decrypts them.
    TAG_NETWORK_PUBLIC_KEY: bytesToHex(publicKeyOf(randomScalar()).toBytes(true)),
    API_PORT: String(await freePort()),
    // Several bucket jobs, one at a time: a run lasts long enough to be killed half way.
    REC_PROFILES_PER_BUCKET: String(Math.max(50, Math.round(profiles / 10))),
    MATERIALIZE_CONCURRENCY: '1',
  });
  const { config, env } = scenario;
  let workers: Child | undefined;
  const startWorkers = async () => {
    workers = startSoulgraph(['workers'], env);
    await waitFor(async () => (await workersServing(config, 'profiles')) > 0, 60_000, 'the workers process');
    return workers;
  };
  const ch = createClickHouse(config);
  let api: Child | undefined;
  try {
    await startWorkers();
    const worldDir = path.join(stack.work, 'served-world');
    const world = await generateWorld({ profiles, seed: 11, outDir: worldDir, kinds: KINDS });
    for (const kind of KINDS) {
      const summary = await runIngest(config, { kind, files: [path.join(worldDir, world.files[kind]!.file)], format: 'canonical', chunkRows: 10_000 });
      if (summary.failedChunks.length > 0) throw new Error(`ingesting the served world's ${kind} failed: ${JSON.stringify(summary.failedChunks[0])}`);
    }
    const wallets = Array.from({ length: TAG_WALLETS }, () => privateKeyToAccount(generatePrivateKey()));
    const walletFile = path.join(worldDir, 'tag-wallets.jsonl');
    await writeFile(walletFile, wallets.map((w, i) => JSON.stringify({ profileId: `p_chaos_wallet_${i}`, name: `Chaos wallet ${i}`, addresses: [w.address.toLowerCase()] })).join('\n') + '\n');
    await runIngest(config, { kind: 'profiles', files: [walletFile], format: 'canonical', chunkRows: 10_000 });

    const first = await watchRun(config, await enqueueRun(config, 'chaos'), () => {}, 200);
    if (first.state !== 'done') throw new Error(`the served world's first materialization ${first.state}: ${first.error}`);

    const apiKey = mintApiKey();
    const now = Math.floor(Date.now() / 1000);
    await ch.insert('api_keys', [
      { key_id: apiKey.keyId, key_hash: apiKey.keyHash, name: 'chaos', domains: [DOMAIN], rate_limit_per_minute: 100_000_000, created_at: now, revoked_at: null, updated_at: now } satisfies ApiKeyRow,
    ]);
    const keys = await loadSigningKeys(config);
    const callers = await ch.query(
      sql`SELECT profile_id, addresses[1] AS address FROM profiles FINAL WHERE notEmpty(addresses) AND NOT startsWith(profile_id, 'p_chaos_wallet_') ORDER BY cityHash64(profile_id) LIMIT ${CALLERS}`,
      z.object({ profile_id: z.string(), address: z.string() }),
    );
    const recommendRequests = await Promise.all(
      callers.map(async (c) => ({
        route: 'recommend',
        path: '/api/v1/recommend?limit=5',
        headers: { ApiKey: apiKey.key, Authorization: `Bearer ${await issueUnifiedToken(keys, config, { profileId: c.profile_id, address: c.address })}` },
      })),
    );
    const sbtRequests = callers.map((c) => ({ route: 'sbt', path: `/api/v1/sbt/list?address=${c.address}`, headers: { ApiKey: apiKey.key } }));
    const tagRequests = await Promise.all(wallets.map((wallet) => signedTagRequest(wallet, apiKey.key)));
    // Interleaved, so that every stretch of the load calls each route.
    const requests = recommendRequests.flatMap((r, i) => [r, sbtRequests[i]!, tagRequests[i % tagRequests.length]!]);

    api = startApiProcess(env);
    const apiUrl = `http://127.0.0.1:${env.API_PORT}`;
    await waitFor(async () => (await fetch(`${apiUrl}/readyz`)).status === 200, 60_000, 'the API to be ready');
    for (const request of [recommendRequests[0]!, sbtRequests[0]!, tagRequests[0]!]) {
      const answer = await call(apiUrl, request);
      if (answer.outcome !== OK) throw new Error(`the served world's ${request.route} answered ${answer.outcome} before any fault`);
    }
    const runningApi = api;
    return {
      scenario,
      apiUrl,
      api: runningApi,
      workers: () => workers!,
      startWorkers,
      requests,
      recommendRequests,
      enqueueRun: () => enqueueRun(config, 'chaos'),
      watchRun: (runId, onView = () => {}) => watchWithin(watchRun(config, runId, onView, 100), RUN_LIMIT_MS),
      newestReadySnapshot: async () => {
        const [row] = await ch.query(sql`SELECT max(snapshot_id) AS id FROM recommendation_snapshots FINAL WHERE status = 'ready'`, z.object({ id: z.coerce.number() }));
        return row && row.id > 0 ? row.id : undefined;
      },
      async stop() {
        await stopChild(runningApi);
        if (workers) await stopChild(workers);
        await ch.close();
      },
    };
  } catch (error) {
    if (api) await stopChild(api);
    if (workers) await stopChild(workers);
    await ch.close();
    throw error;
  }
}

async function signedTagRequest(wallet: ReturnType<typeof privateKeyToAccount>, apiKey: string): Promise<ApiRequest> {
  const { message, sig } = await signTagAccess(wallet, { domain: DOMAIN, uri: `https://${DOMAIN}`, chainId: 1 });
  return { route: 'tag', path: `/api/v1/tag?${new URLSearchParams({ address: wallet.address, sig, message })}`, headers: { ApiKey: apiKey } };
}

async function watchWithin(watching: Promise<RunView>, limitMs: number): Promise<RunView> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RunView>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'failed', buckets: [], error: `still running after ${limitMs / 1000} s` }), limitMs);
  });
  try {
    return await Promise.race([watching, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The snapshot a recommend page was read from, as its cursor names it (api/recommend/cursor.ts); undefined on a last page. */
export function snapshotOfPage(body: unknown): number | undefined {
  const cursor = (body as { data?: { cursor?: unknown } } | undefined)?.data?.cursor;
  if (typeof cursor !== 'string' || !cursor) return undefined;
  const payload = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as { s?: unknown };
  return typeof payload.s === 'number' ? payload.s : undefined;
}
