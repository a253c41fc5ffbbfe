/**
 * A follower who began after the profile's newest follow of its own has not had the chance
 * to be followed back, and counts the follows-you weight twice (migration 050), nightly and
 * on demand. Worked out by hand; this world has 6 follows, too few to fit the follows-you
 * weight, so it is REC_FOLLOWS_YOU_BONUS (1), plus the millionth every follower gets, and a
 * path's middle weighs 1 / ln(e + how many it follows):
 *
 *   me -> x (T-100)   x -> a (T-300)   a -> me (T-200)   b -> me (T-50)   b -> y (T-50)   c -> me (T-100)
 *
 *   my candidate  evidence                                                 score
 *   b             follows me, since my newest follow (T-100)               2 x 1.000001         = 2.000002
 *   a             x (follows 1) follows a; follows me, before it           1/ln(e+1) + 1.000001 = 1.761595
 *   c             follows me, at the second of my newest follow            1.000001
 *   y             b (follows 2), who follows me, follows y                 1/ln(e+2)            = 0.644575
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { computeOnDemand } from '../../pipeline/materialize/cold-start.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { expectWorkedList, workedList, type WorkedRow } from '../support/worked-lists.ts';

// Paths weigh by their middle alone here: when they were made has its own test (path-recency.test.ts).
const env = useTestEnvironment({ REC_PATH_RECENCY: 'never' });
const id = (name: string) => `nf_${name}`;
const follow = (from: string, to: string, ago: number) => ({ followerProfileId: id(from), followeeProfileId: id(to), followedAt: T - ago });
const profile = (name: string) => ({ profileId: id(name), name, addresses: [addressOf(`new-followers-${name}`)], updatedAt: T });
const path = (follows: number) => 1 / Math.log(Math.E + follows);
const FOLLOWER = 1.000001;

const mine: WorkedRow[] = [
  { candidate: 'b', score: 2 * FOLLOWER, subject: 'b' },
  { candidate: 'a', score: path(1) + FOLLOWER, subject: 'x' },
  { candidate: 'c', score: FOLLOWER, subject: 'c' },
  { candidate: 'y', score: path(2), subject: 'b' },
];

let snapshotId: number;

const listOf = (name: string) => workedList(env, snapshotId, 'nf_', name);
const expectList = (actual: WorkedRow[], expected: WorkedRow[]) => expectWorkedList(actual, expected, 6);

beforeAll(async () => {
  await ingestRecords(env, {
    profiles: ['me', 'x', 'a', 'b', 'c', 'y'].map(profile),
    follows: [follow('me', 'x', 100), follow('x', 'a', 300), follow('a', 'me', 200), follow('b', 'me', 50), follow('b', 'y', 50), follow('c', 'me', 100)],
  });
  snapshotId = await readySnapshot(env);
});

describe('a follower since my newest follow', () => {
  it('counts twice in the nightly list: b before a, whom a path also reaches, and c, who followed at the same second as I did', async () => {
    expectList(await listOf('me'), mine);
  });

  it('is not new to a profile that follows nobody: y has b at the follows-you weight once, then me, whom b follows', async () => {
    const y = (await listOf('y')).slice(0, 2);
    expectList(y, [
      { candidate: 'b', score: FOLLOWER, subject: 'b' },
      { candidate: 'me', score: path(2), subject: 'b' },
    ]);
  });

  it('counts twice in a list computed on demand, from the live follows', async () => {
    // After the snapshot, a newcomer in my place: it follows x at T-100, as I do; a, b and c
    // follow it as they follow me. It has my candidates, and me: a (follows 1), b (2) and c (1)
    // follow it and me, the path through a named (who follows fewest, then the lower id).
    await ingestRecords(env, {
      profiles: [profile('newbie')],
      follows: [follow('newbie', 'x', 100), follow('a', 'newbie', 200), follow('b', 'newbie', 50), follow('c', 'newbie', 100)],
    });
    expect(await computeOnDemand(env.ch, snapshotId, id('newbie'), scoringParams(env.config), materializeQuerySettings(env.config))).toMatchObject({ computed: true });
    expectList(await listOf('newbie'), [{ candidate: 'me', score: 2 * path(1) + path(2), subject: 'a' }, ...mine]);
  });
});
