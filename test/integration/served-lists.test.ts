import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecommendationList } from '../../api/recommend/recommendation-list.ts';
import { createServedLists, type ServedLists, type ServedPage } from '../../api/recommend/served-lists.ts';
import { encodeServedList, followState, REASON_KINDS, servingKeys, type ServedList } from '../../shared/serving.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let redis: Redis;
let served: ServedLists;
const prefix = `${env.config.QUEUE_PREFIX}:served-lists-test`;
const keys = servingKeys({ ...env.config, QUEUE_PREFIX: prefix });

const list: ServedList = {
  m: 1,
  e: [
    ['p_a', 1, 0, ''],
    ['p_b', 4, 0, 'p_friend'],
    ['p_unnamed', 3, 1, 'CryptoPunks'],
  ],
};

/** Every character JSON.stringify escapes, and some it does not ('/', DEL, U+2028, astral). */
const AWKWARD = `Bored Ape's "Club" \\ / \t\n\r\b\f \x00\x01\x1f\x7f ⛓ é 𝄞 \u2028`;

/**
 * A list with every reason form and every way a name can be missing. Profile ids are
 * identifiers (shared/records/fields.ts); names, avatars and collection names can be anything.
 */
const awkwardList: ServedList = {
  m: 0,
  e: [
    ['p_awkward', 1, 0, ''],
    ['p_named', 2, 137, ''],
    ['p_unknown_chain', 2, 4_294_967_295, ''],
    ['p_nameless', 3, 1, AWKWARD],
    ['p_empty', 4, 0, 'p_named'],
    ['p_named', 4, 0, 'p_empty'],
    ['p_x', 4, 0, 'p_awkward'],
    ['p_y', 4, 0, 'p_nobody'],
  ],
};
const awkwardSummaries: Record<string, [number, string | null, string | null]> = {
  p_awkward: [1, AWKWARD, `https://img.example/${AWKWARD}.png`],
  p_named: [2, 'Ñame / "quoted"', null],
  p_empty: [3, '', ''],
  p_nameless: [4, null, 'https://img.example/a.png'],
};

beforeAll(async () => {
  redis = new Redis(env.config.REDIS_URL!, { enableAutoPipelining: true });
  served = createServedLists(redis, { ...env.config, QUEUE_PREFIX: prefix });
  await redis.set(keys.list(7, 'p_me'), encodeServedList(list));
  await redis.set(keys.list(9, 'p_me'), encodeServedList(awkwardList));
  await redis.hset(keys.profiles('p_me'), {
    p_a: JSON.stringify([10, 'Ann "the \\ quoted" ⛓', 'https://a.example/a.png']),
    p_b: JSON.stringify([10, 'Bo', null]),
    p_friend: JSON.stringify([10, 'Fay', '']),
    ...Object.fromEntries(Object.entries(awkwardSummaries).map(([id, summary]) => [id, JSON.stringify(summary)])),
  });
  await redis.hset(keys.following('p_me'), { p_a: followState(5, false), p_b: followState(6, true), p_named: followState(7, true) });
});

afterAll(async () => {
  await redis.del(keys.list(7, 'p_me'), keys.list(6, 'p_me').replace(':v4:', ':'), keys.list(9, 'p_me'), keys.list(5, 'p_me'), keys.profiles('p_me'), keys.following('p_me'));
  await redis.quit();
});

/** The page as the response carries it. */
const listOf = (page: ServedPage | undefined) =>
  JSON.parse(encodeRecommendationList(env.config, page!.rows, page!.profiles, page!.following)) as { profileId: string; name: string; avatar: string; recommendReason: string; following: boolean }[];

describe('a page of the serving copy', () => {
  it('answers the page with the names, avatars and reasons of its users, and whom the caller follows now', async () => {
    const page = await served.page(7, 'p_me', 0, 3);
    expect(listOf(page)).toEqual([
      // p_a was unfollowed (low bit 0), p_b is followed, p_unnamed never was.
      { profileId: 'p_a', name: 'Ann "the \\ quoted" ⛓', avatar: 'https://a.example/a.png', recommendReason: `Following on ${env.config.SOCIAL_NETWORK_NAME}`, following: false },
      { profileId: 'p_b', name: 'Bo', avatar: '', recommendReason: 'Followed by Fay', following: true },
      { profileId: 'p_unnamed', name: '', avatar: '', recommendReason: 'Holder of CryptoPunks', following: false },
    ]);
    expect(page).toMatchObject({ hasNext: false, stored: 3, more: true });
  });

  it('reads back every string as it was stored, and every reason form from it', async () => {
    const page = await served.page(9, 'p_me', 0, 100);
    expect(page!.rows).toEqual(
      awkwardList.e.map(([candidate_id, kind, reason_chain_id, reason_subject], i) => ({
        rank: i + 1,
        candidate_id,
        reason_kind: REASON_KINDS[kind - 1],
        reason_chain_id,
        reason_subject,
      })),
    );
    expect(listOf(page).map((u) => [u.profileId, u.name, u.avatar, u.following])).toEqual([
      ['p_awkward', AWKWARD, `https://img.example/${AWKWARD}.png`, false],
      ['p_named', 'Ñame / "quoted"', '', true],
      ['p_unknown_chain', '', '', false],
      ['p_nameless', '', 'https://img.example/a.png', false],
      ['p_empty', '', '', false],
      ['p_named', 'Ñame / "quoted"', '', true],
      ['p_x', '', '', false],
      ['p_y', '', '', false],
    ]);
    expect(listOf(page).map((u) => u.recommendReason)).toEqual([
      `Following on ${env.config.SOCIAL_NETWORK_NAME}`,
      'Counterparty on Polygon',
      'Counterparty on chain 4294967295',
      `Holder of ${AWKWARD}`,
      'Followed by Ñame / "quoted"',
      'Followed by p_empty',
      `Followed by ${AWKWARD}`,
      'Followed by p_nobody',
    ]);
  });

  it('reads each page of every length the same as slicing the list, and says whether another follows', async () => {
    for (let after = 0; after <= 4; after++) {
      for (let limit = 1; limit <= 4; limit++) {
        const page = await served.page(7, 'p_me', after, limit);
        const expected = list.e.slice(after, after + limit).map((e) => e[0]);
        expect(listOf(page).map((u) => u.profileId), `after ${after}, limit ${limit}`).toEqual(expected);
        expect(page!.rows.map((r) => r.rank), `after ${after}, limit ${limit}`).toEqual(expected.map((_, i) => after + i + 1));
        expect(page).toMatchObject({ hasNext: after + limit < list.e.length, stored: 3, more: true });
      }
    }
  });

  it('answers an empty page past the end of the stored list', async () => {
    const page = await served.page(7, 'p_me', 3, 5);
    expect(page?.rows).toEqual([]);
    expect(page).toMatchObject({ hasNext: false, stored: 3, more: true });
  });

  it('reads no list stored in an earlier format: its keys are not the current format\'s', async () => {
    expect(keys.list(7, 'p_me')).toContain(':v4:');
    await redis.set(keys.list(6, 'p_me').replace(':v4:', ':'), JSON.stringify(list));
    expect(await served.page(6, 'p_me', 0, 5)).toBeUndefined();
  });

  it('answers undefined when the profile has no list in that snapshot', async () => {
    expect(await served.page(8, 'p_me', 0, 5)).toBeUndefined();
  });

  it('fails loudly when a stored summary is not JSON, or not a summary, rather than serving a wrong name', async () => {
    for (const bad of ['not json', '{"name":"Ann"}', '[10,7,""]', '[10]']) {
      await redis.hset(keys.profiles('p_a'), 'p_a', bad);
      try {
        await expect(served.page(7, 'p_me', 0, 1), bad).rejects.toThrow();
      } finally {
        await redis.hset(keys.profiles('p_a'), 'p_a', JSON.stringify([10, 'Ann', '']));
      }
    }
  });

  it('fails loudly on a stored entry that is not an entry', async () => {
    for (const entry of ['p_a\t8\t0\t', 'p_a\t0\t0\t', 'p_a\t1\t0', 'p_a\tx\t0\t', '\t1\t0\t', 'p_a\t1\t0\t\t', '["p_a",1,0,""]']) {
      await redis.set(keys.list(5, 'p_me'), `0\t1\n${entry}`);
      await expect(served.page(5, 'p_me', 0, 1), entry).rejects.toThrow(/malformed entry at rank 1/);
    }
  });
});
