import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServedLists } from '../../api/recommend/served-lists.ts';
import { publishLists } from '../../pipeline/serving/list-publisher.ts';
import { createServingWriter, type ServingWriter } from '../../pipeline/serving/serving-writer.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { decodeServedList, REASON_KINDS, type ServedEntry, type ServedList } from '../../shared/serving.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let writer: ServingWriter;
let redis: Redis;

const SNAPSHOT = 3;
/** Every character TabSeparated and JSON escape, and some they do not. */
const AWKWARD = `Bored Ape's "Club" \\ / \t\n\r\b\f \x00\x01\x1f\x7f ⛓ é 𝄞 \u2028`;

beforeAll(async () => {
  writer = createServingWriter(env.config);
  redis = new Redis(env.config.REDIS_URL!);
  const entries: Record<string, ServedEntry[]> = {
    p_me: [
      ['p_a', 1, 0, ''],
      ['p_b', 3, 137, AWKWARD],
      ['p_c', 4, 0, 'p_friend'],
      ['p_d', 2, 1, ''],
    ],
    p_short: [['p_me', 4, 0, 'p_b']],
  };
  await env.ch.insert(
    'recommendations',
    Object.entries(entries).flatMap(([profileId, list]) =>
      list.map(([candidate, kind, chain, subject], i) => ({
        snapshot_id: SNAPSHOT,
        bucket: 0,
        profile_id: profileId,
        rank: i + 1,
        candidate_id: candidate,
        score: 10 - i,
        reason_kind: REASON_KINDS[kind - 1],
        reason_chain_id: chain,
        reason_subject: subject,
      })),
    ),
  );
});

afterAll(async () => {
  await writer.close();
  await redis.quit();
});

const stored = (profileId: string) => redis.get(writer.keys.list(SNAPSHOT, profileId));

describe('publishing lists into the serving copy', () => {
  it('stores each profile its first entries in rank order, every string as it was ranked, and whether there are more', async () => {
    const published = await publishLists(env.ch, writer, SNAPSHOT, sql`bucket = 0`, 3, ['p_me', 'p_short', 'p_nothing']);

    expect(published).toBe(3);
    const me: ServedList = {
      m: 1,
      e: [
        ['p_a', 1, 0, ''],
        ['p_b', 3, 137, AWKWARD],
        ['p_c', 4, 0, 'p_friend'],
      ],
    };
    expect(decodeServedList((await stored('p_me'))!)).toEqual(me);
    expect(decodeServedList((await stored('p_short'))!)).toEqual({ m: 0, e: [['p_me', 4, 0, 'p_b']] });
    expect(decodeServedList((await stored('p_nothing'))!)).toEqual({ m: 0, e: [] });
    expect(await redis.ttl(writer.keys.list(SNAPSHOT, 'p_me'))).toBeGreaterThan(0);
  });

  it('is read back by the API as it was ranked', async () => {
    const page = await createServedLists(redis, env.config).page(SNAPSHOT, 'p_me', 1, 5);
    expect(page!.rows.map((r) => [r.rank, r.candidate_id, r.reason_kind, r.reason_subject])).toEqual([
      [2, 'p_b', 'nft', AWKWARD],
      [3, 'p_c', 'friend_of_friend', 'p_friend'],
    ]);
    expect(page?.more).toBe(true);
  });

  it('publishes one profile alone (an on-demand list)', async () => {
    await redis.del(writer.keys.list(SNAPSHOT, 'p_short'));
    expect(await publishLists(env.ch, writer, SNAPSHOT, sql`profile_id = ${'p_short'}`, 3, ['p_short'])).toBe(1);
    expect(decodeServedList((await stored('p_short'))!)).toEqual({ m: 0, e: [['p_me', 4, 0, 'p_b']] });
  });
});
