/**
 * A wallet's first sign-in registers its profile (and its inviter) through the pipeline, so
 * the profile is in ClickHouse only a moment later. A second sign-in in that moment is not
 * a first: it gets the same profile, and the first sign-in's invite stands.
 */
import { Queue } from 'bullmq';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { profileIdForAddress } from '../../api/auth/auth.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { useApi } from '../support/api-harness.ts';
import { waitFor } from '../support/child-process.ts';
import { ingestFiles, writeJsonLines } from '../support/pipeline-harness.ts';

const api = useApi();
let apiKey: string;
let queues: Queue[];

beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
  await ingestFiles(api, 'profiles', [
    await writeJsonLines('inviters.jsonl', [
      { profileId: 'p_inviter_a', name: 'Inviter A' },
      { profileId: 'p_inviter_b', name: 'Inviter B' },
    ]),
  ]);
  queues = (['profiles', 'invites'] as const).map(
    (kind) => new Queue(ingestQueueName(kind), { connection: redisConnection(api.config, 'producer'), prefix: api.config.QUEUE_PREFIX }),
  );
});
afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
});

const auth = (addressToken: string, inviteCode: string) =>
  api.call('/api/v1/auth', {
    apiKey,
    method: 'POST',
    headers: { 'I-Authorization': `Bearer ${addressToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ inviteCode }),
  });

describe('a second sign-in while the first is still being registered', () => {
  it('gets the same profile, and the first sign-in decides the inviter', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const me = profileIdForAddress(wallet.address.toLowerCase());
    const [first, second] = [await api.addressToken(apiKey, wallet), await api.addressToken(apiKey, wallet)];

    // The pipeline holds the registration: the profile is not in ClickHouse yet.
    await Promise.all(queues.map((q) => q.pause()));
    try {
      const answers = [await auth(first, 'p_inviter_a'), await auth(second, 'p_inviter_b')];
      for (const answer of answers) expect([answer.status, answer.body.code]).toEqual([200, '0']);
    } finally {
      await Promise.all(queues.map((q) => q.resume()));
    }

    const inviters = () =>
      api.ch.query(sql`SELECT inviter_profile_id FROM invites WHERE invitee_profile_id = ${me}`, z.object({ inviter_profile_id: z.string() }));
    await waitFor(async () => (await inviters()).length > 0, 15_000, 'the invite');
    await waitFor(async () => (await api.ch.query(sql`SELECT 1 AS one FROM profiles FINAL WHERE profile_id = ${me}`, z.object({ one: z.number() }))).length === 1, 15_000, 'the profile');
    // Every invite row written for this profile names the first inviter: none for the second.
    expect(await inviters()).toEqual([{ inviter_profile_id: 'p_inviter_a' }]);
  });

  it('lets a first sign-in refused for its invite code be tried again, with another code', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const me = profileIdForAddress(wallet.address.toLowerCase());
    const refused = await auth(await api.addressToken(apiKey, wallet), 'p_nobody');
    expect([refused.status, refused.body.code]).toEqual([400, '10200']);
    const again = await auth(await api.addressToken(apiKey, wallet), 'p_inviter_b');
    expect([again.status, again.body.code]).toEqual([200, '0']);
    await waitFor(
      async () =>
        (await api.ch.query(sql`SELECT inviter_profile_id FROM invites FINAL WHERE invitee_profile_id = ${me}`, z.object({ inviter_profile_id: z.string() })))[0]
          ?.inviter_profile_id === 'p_inviter_b',
      15_000,
      'the invite of the second try',
    );
  });
});
