/**
 * The serving copy in a Redis of its own (SERVING_REDIS_URL, as `npm start` and
 * docker-compose.yml run it): the nightly run writes the lists and mirrors there, the API
 * answers and counts rate limits there, and the queues' Redis holds none of it, so that an
 * ingest's append-only-file writes never hold the API's reads.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../shared/local-stack/redis-server.ts';
import type { RunningService } from '../../shared/local-stack/running-service.ts';
import * as world from '../fixtures/small-world.ts';
import { useApi } from '../support/api-harness.ts';
import { ingestRecords, materializeNow } from '../support/pipeline-harness.ts';
import { waitFor } from '../support/child-process.ts';

let serving: RunningService;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-serving-redis-'));
  serving = await startRedis({ dir, persistence: 'snapshots-on-request' });
});
afterAll(async () => {
  await serving?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Registered after the hook above: the serving Redis runs before the API and workers start.
const api = useApi(world.SMALL_WORLD_SETTINGS, { late: () => ({ SERVING_REDIS_URL: serving.url }) });

/** The serving Redis's `INFO persistence` field, as a number. */
async function persistenceField(url: string, field: string): Promise<number> {
  const redis = new Redis(url);
  try {
    return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(await redis.info('persistence'))?.[1]);
  } finally {
    redis.disconnect();
  }
}

async function keysOf(url: string, pattern: string): Promise<string[]> {
  const redis = new Redis(url);
  try {
    return await redis.keys(pattern);
  } finally {
    redis.disconnect();
  }
}

describe('a deployment with SERVING_REDIS_URL', () => {
  it('answers recommend from the serving Redis with names and reasons, saved once the run has published', async () => {
    const { key: apiKey } = await api.createApiKey();
    const savesBefore = await persistenceField(serving.url, 'rdb_saves');
    await ingestRecords(api, world.records);
    const view = await materializeNow(api);
    expect(view.state).toBe('done');
    // Saved once the run published, and only then: no save rule fired on its own while the
    // ingestion and the run changed the keys. (Changes since that save are not asserted: in a
    // loaded suite, 108 were seen once, a worker's last mirror writes landing after it.)
    await waitFor(async () => (await persistenceField(serving.url, 'rdb_saves')) > savesBefore, 10_000, 'the snapshot after the run');
    expect(await persistenceField(serving.url, 'rdb_saves')).toBe(savesBefore + 1);

    const token = await api.unifiedTokenFor('p_me', world.addressOf('me-1'));
    const { status, body } = await api.call('/api/v1/recommend?limit=3', { apiKey, headers: { Authorization: `Bearer ${token}` } });
    expect(status).toBe(200);
    // The small world's first three for me (worked out in test/e2e/recommend-materialized.test.ts).
    expect(body.data.list).toEqual([
      { profileId: 'p_hank', name: 'Hank', avatar: '', recommendReason: 'Follows you', following: false },
      { profileId: 'p_gina', name: 'Gina', avatar: '', recommendReason: 'Following on Twitter', following: false },
      { profileId: 'p_bob', name: 'Bob', avatar: '', recommendReason: 'Counterparty on Ethereum', following: false },
    ]);

    const prefix = api.config.QUEUE_PREFIX;
    const servingKeys = await keysOf(serving.url, `${prefix}:*`);
    expect(servingKeys).toContain(`${prefix}:serving:profiles`);
    expect(servingKeys.some((k) => k.startsWith(`${prefix}:serving:list:`) && k.endsWith(':p_me'))).toBe(true);
    expect(servingKeys.some((k) => k.startsWith(`${prefix}:ratelimit`))).toBe(true);
    // No queue: BullMQ keeps a `meta` hash per queue.
    expect(servingKeys.filter((k) => k.endsWith(':meta'))).toEqual([]);
  });

  it("leaves the queues' Redis without serving keys, rate-limit counters or nonces", async () => {
    const prefix = api.config.QUEUE_PREFIX;
    const queueKeys = await keysOf(api.config.REDIS_URL!, `${prefix}:*`);
    expect(queueKeys.some((k) => k.endsWith(':meta'))).toBe(true);
    expect(queueKeys.filter((k) => /:(serving|ratelimit|siwe-nonce)/.test(k))).toEqual([]);
  });
});
