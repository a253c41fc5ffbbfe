/**
 * A Redis that stops answering (SIGSTOP: the connection stays open, no reply comes) is as
 * unavailable as one that is down: the API answers 503 with 10503 once its command timeout
 * passes, and serves again when Redis resumes. A Redis of this file's own, since stopping
 * the shared one would stall every other test file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as world from '../fixtures/small-world.ts';
import { whileStopped } from '../support/stopped-process.ts';
import { useApi } from '../support/api-harness.ts';
import { usePrivateRedis } from '../support/private-redis.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';

const redis = usePrivateRedis('stalled-redis');
const api = useApi(world.SMALL_WORLD_SETTINGS, { late: () => ({ REDIS_URL: redis.url }) });

let apiKey: string;
beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
  await ingestRecords(api, world.records);
  await readySnapshot(api);
});

describe('the API with a stalled Redis', () => {
  it('answers a nonce request and a recommend call with 503 and 10503, then serves again once Redis resumes', async () => {
    // "me" has a list in the snapshot, served from Redis.
    const token = await api.unifiedTokenFor('p_me', world.addressOf('me-1'));
    expect((await api.call('/api/v1/recommend', { apiKey, headers: { Authorization: `Bearer ${token}` } })).body.data.list.length).toBeGreaterThan(0);
    const [nonce, recommend] = await whileStopped(redis.pid, () =>
      Promise.all([
        api.call('/api/v1/auth/nonce', { apiKey }),
        api.call('/api/v1/recommend', { apiKey, headers: { Authorization: `Bearer ${token}` } }),
      ]),
    );
    for (const answer of [nonce, recommend]) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ code: '10503', data: null });
    }
    expect((await api.call('/api/v1/auth/nonce', { apiKey })).status).toBe(200);
    expect((await api.call('/api/v1/recommend', { apiKey, headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
