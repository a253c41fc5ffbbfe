import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServedLists, type ServedLists } from '../../api/served-lists.ts';
import { encodeServedList, followState, servingKeys, type ServedList } from '../../shared/serving.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let redis: Redis;
let served: ServedLists;
const prefix = `${env.config.QUEUE_PREFIX}:served-lists-test`;
const keys = servingKeys(prefix);

const list: ServedList = {
  m: 1,
  e: [
    ['p_a', 1, 0, ''],
    ['p_b', 4, 0, 'p_friend'],
    ['p_unnamed', 3, 1, 'CryptoPunks'],
  ],
};

beforeAll(async () => {
  redis = new Redis(env.config.REDIS_URL!, { enableAutoPipelining: true });
  served = createServedLists(redis, prefix);
  await redis.set(keys.list(7, 'p_me'), encodeServedList(list));
  await redis.hset(keys.profiles, {
    p_a: JSON.stringify([10, 'Ann "the \\ quoted" ⛓', 'https://a.example/a.png']),
    p_b: JSON.stringify([10, 'Bo', null]),
    p_friend: JSON.stringify([10, 'Fay', '']),
  });
  await redis.hset(keys.following('p_me'), { p_a: followState(5, false), p_b: followState(6, true) });
});

afterAll(async () => {
  await redis.del(keys.list(7, 'p_me'), keys.list(6, 'p_me'), keys.profiles, keys.following('p_me'));
  await redis.quit();
});

describe('a page of the serving copy', () => {
  it('returns the entries after a rank with names, avatars and whom the caller follows now', async () => {
    const page = await served.page(7, 'p_me', 0, 3);
    expect(page?.entries).toEqual([
      ['p_a', 1, 0, ''],
      ['p_b', 4, 0, 'p_friend'],
      ['p_unnamed', 3, 1, 'CryptoPunks'],
    ]);
    expect(page?.stored).toBe(3);
    expect(page?.more).toBe(true);
    expect(Object.fromEntries(page!.names)).toEqual({
      p_a: { name: 'Ann "the \\ quoted" ⛓', avatar: 'https://a.example/a.png' },
      p_b: { name: 'Bo', avatar: '' },
      p_friend: { name: 'Fay', avatar: '' },
    });
    // p_a was unfollowed (low bit 0), p_b is followed, p_unnamed never was.
    expect([...page!.following]).toEqual(['p_b']);
  });

  it('slices from the rank after the cursor', async () => {
    const page = await served.page(7, 'p_me', 2, 5);
    expect(page?.entries.map((e) => e[0])).toEqual(['p_unnamed']);
    expect(page?.names.size).toBe(0);
  });

  it('answers an empty page past the end of the stored list', async () => {
    const page = await served.page(7, 'p_me', 3, 5);
    expect(page).toMatchObject({ entries: [], stored: 3, more: true });
    expect(page?.following.size).toBe(0);
  });

  it('reads each page of every length the same as slicing the list', async () => {
    for (let after = 0; after <= 4; after++) {
      for (let count = 1; count <= 4; count++) {
        const page = await served.page(7, 'p_me', after, count);
        expect(page?.entries, `after ${after}, count ${count}`).toEqual(list.e.slice(after, after + count));
      }
    }
  });

  it('still reads a list stored as one JSON object (the format before one entry per line)', async () => {
    await redis.set(keys.list(6, 'p_me'), JSON.stringify(list));
    const page = await served.page(6, 'p_me', 1, 5);
    expect(page?.entries).toEqual(list.e.slice(1));
    expect(page).toMatchObject({ stored: 3, more: true });
    expect([...page!.following]).toEqual(['p_b']);
  });

  it('answers undefined when the profile has no list in that snapshot', async () => {
    expect(await served.page(8, 'p_me', 0, 5)).toBeUndefined();
  });

  it('fails loudly when a stored summary is not JSON, rather than serving a wrong name', async () => {
    await redis.hset(keys.profiles, 'p_a', 'not json');
    try {
      await expect(served.page(7, 'p_me', 0, 1)).rejects.toThrow();
    } finally {
      await redis.hset(keys.profiles, 'p_a', JSON.stringify([10, 'Ann', '']));
    }
  });
});
