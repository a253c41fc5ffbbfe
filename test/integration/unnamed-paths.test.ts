/**
 * Paths no reason can name (pipeline/materialize/unnamed-paths.ts): you both follow z, or the
 * candidate follows z who follows you. Worked out by hand. A named path's middle weighs
 * 1 / ln(e + how many it follows); an unnamed one half of 1 / ln(e + d), d how many follow z
 * (you both follow z) or how many z follows (z follows you). Paths weigh by their middle
 * alone here (REC_PATH_RECENCY=never): when they were made has its own tests.
 *
 * The lists (REC_UNNAMED_PATHS always, and never):
 *
 *   me -> f, me -> z      f -> c1, c2, c3      q -> c1      c2 -> z      c3 -> y      y -> me      w -> z
 *
 *   candidate  named                              unnamed                         always    never
 *   y          follows me: REC_FOLLOWS_YOU_BONUS  -                               1.000001  1.000001
 *   c1         f (follows 3): 1/ln(e+3) = 0.5735  -                               0.5735    0.5735 (followed by 2)
 *   c2         the same                           c2 -> z <- me: 0.5/ln(e+3)      0.8602    0.5735 (followed by 1)
 *   c3         the same                           c3 -> y -> me: 0.5/ln(e+1)      0.9542    0.5735 (followed by 1)
 *   w          none: not a candidate              w -> z <- me
 *
 * A newcomer after the snapshot, following f and z as I do and followed by y, gets my list
 * and me: y follows me (named, 1/ln(e+1)), and I follow f and z too (0.5/ln(e+1) + 0.5/ln(e+3)).
 *
 * The fit (REC_FIT_PLACES=1: a held-out follow is found when no other candidate scores
 * more), on worlds of twelve copies each:
 *
 *   found only with them: p -> f, g, h, a1, a2, a3, and newest t (held out); f -> x, g -> x,
 *   h -> t; t -> a1, a2, a3, and newest a4 (held out). Named, x (2 x 0.7614) beats t
 *   (0.7614); with unnamed paths t gains 3 x 0.5/ln(e+2) (a1..a3 each followed by p and t):
 *   1.7283, first. t's held-out a4 is no candidate of t either way. 24 held out, 12 found only
 *   with them: 12 > 0 + 2 sqrt(12) = 6.9, on.
 *
 *   found only without them, added next: the mirror, t reached through f and g, x through h,
 *   x following a1..a4: named t first, with them x (1.7283) before t (1.5228). 48 held out, 12
 *   found each way only: not better beyond chance, off.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { computeOnDemand } from '../../pipeline/materialize/cold-start.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment, type TestEnvironment } from '../support/test-environment.ts';
import { expectWorkedList, workedList, type WorkedRow } from '../support/worked-lists.ts';

const always = useTestEnvironment({ REC_PATH_RECENCY: 'never', REC_UNNAMED_PATHS: 'always' });
const never = useTestEnvironment({ REC_PATH_RECENCY: 'never', REC_UNNAMED_PATHS: 'never' });
const fitted = useTestEnvironment({ REC_PATH_RECENCY: 'never', REC_FIT_PLACES: '1' });

type Follows = [from: string, to: string, ago: number][];
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function world(prefix: string, follows: Follows) {
  const names = new Set(follows.flatMap(([from, to]) => [from, to]));
  return {
    profiles: [...names].map((name) => ({ profileId: prefix + name, name, addresses: [addressOf(`u-${prefix}${name}`)], updatedAt: T })),
    follows: follows.map(([from, to, ago]) => ({ followerProfileId: prefix + from, followeeProfileId: prefix + to, followedAt: T - ago })),
  };
}

const path = (follows: number) => 1 / Math.log(Math.E + follows);
const unnamed = (degree: number) => 0.5 * path(degree);
const FOLLOWER = 1.000001;

const lists: Follows = [
  ['me', 'f', 100],
  ['me', 'z', 100],
  ['f', 'c1', 300],
  ['f', 'c2', 300],
  ['f', 'c3', 300],
  ['q', 'c1', 300],
  ['c2', 'z', 300],
  ['c3', 'y', 300],
  ['y', 'me', 400],
  ['w', 'z', 300],
];
const reordered: WorkedRow[] = [
  { candidate: 'y', score: FOLLOWER, subject: 'y' },
  { candidate: 'c3', score: path(3) + unnamed(1), subject: 'f' },
  { candidate: 'c2', score: path(3) + unnamed(3), subject: 'f' },
  { candidate: 'c1', score: path(3), subject: 'f' },
];

/** A profile's scored rows (the list filled up with the most followed has more, at 0). */
async function scored(env: TestEnvironment, snapshotId: number, name: string): Promise<WorkedRow[]> {
  return (await workedList(env, snapshotId, 'up_', name)).filter((r) => r.score > 0);
}

/** The snapshot of `always`: the newcomer's list is computed against it. */
let alwaysSnapshot: number;

describe('paths no reason can name', () => {
  it('reorder a list by what they weigh where the run counts them, each candidate keeping its named reason', async () => {
    await ingestRecords(always, world('up_', lists));
    alwaysSnapshot = await readySnapshot(always);
    expectWorkedList(await scored(always, alwaysSnapshot, 'me'), reordered, 6);
  });

  it('leave the list as the named paths rank it where the run does not: ties to the more followed, then the lower id', async () => {
    await ingestRecords(never, world('up_', lists));
    const snapshotId = await readySnapshot(never);
    expectWorkedList(
      await scored(never, snapshotId, 'me'),
      [
        { candidate: 'y', score: FOLLOWER, subject: 'y' },
        { candidate: 'c1', score: path(3), subject: 'f' },
        { candidate: 'c2', score: path(3), subject: 'f' },
        { candidate: 'c3', score: path(3), subject: 'f' },
      ],
      6,
    );
  });

  it('reorder a list computed on demand alike, from the live follows, and never make a candidate: w, whom only "you both follow z" reaches, is on neither list', async () => {
    // After the snapshot, a newcomer in my place: it follows f and z, and y follows it.
    await ingestRecords(always, world('up_', [['newbie', 'f', 100], ['newbie', 'z', 100], ['y', 'newbie', 400]]));
    const result = await computeOnDemand(always.ch, alwaysSnapshot, 'up_newbie', scoringParams(always.config), materializeQuerySettings(always.config));
    expect(result).toMatchObject({ computed: true });
    expectWorkedList(await scored(always, alwaysSnapshot, 'newbie'), [{ candidate: 'me', score: path(1) + unnamed(1) + unnamed(3), subject: 'y' }, ...reordered], 6);
  });
});

const fitRow = z.object({
  held_out: z.coerce.number(),
  found_named: z.coerce.number(),
  found_unnamed: z.coerce.number(),
  only_named: z.coerce.number(),
  only_unnamed: z.coerce.number(),
  unnamed: z.coerce.number(),
});

async function fitOf(snapshotId: number) {
  return fitted.ch.query(
    sql`SELECT held_out, found_named, found_unnamed, only_named, only_unnamed, unnamed FROM mat_unnamed_paths_fit WHERE snapshot_id = ${snapshotId}`,
    fitRow,
  );
}

/** p -> f, g, h, a1..a3, newest t; `twice` is reached through f and g, `once` through h; `follower` follows a1..a4. */
function fitWorld(prefix: string, twice: string, once: string, follower: string) {
  return world(
    prefix,
    range(12).flatMap((i): Follows => [
      ...['f', 'g', 'h', 'a1', 'a2', 'a3'].map((to): Follows[number] => [`p_${i}`, `${to}_${i}`, 500]),
      [`p_${i}`, `t_${i}`, 10],
      [`f_${i}`, `${twice}_${i}`, 400],
      [`g_${i}`, `${twice}_${i}`, 400],
      [`h_${i}`, `${once}_${i}`, 400],
      ...['a1', 'a2', 'a3'].map((to): Follows[number] => [`${follower}_${i}`, `${to}_${i}`, 300]),
      [`${follower}_${i}`, `a4_${i}`, 20],
    ]),
  );
}

describe('whether paths no reason can name count, fitted on held-out follows', () => {
  it('counts them when they find the held-out follows beyond chance more often', async () => {
    await ingestRecords(fitted, fitWorld('uf_', 'x', 't', 't'));
    const snapshotId = await readySnapshot(fitted);
    expect(await fitOf(snapshotId)).toEqual([{ held_out: 24, found_named: 0, found_unnamed: 12, only_named: 0, only_unnamed: 12, unnamed: 1 }]);
  });

  it('leaves them off when they find no more than they lose', async () => {
    await ingestRecords(fitted, fitWorld('uf_m', 't', 'x', 'x'));
    const snapshotId = await readySnapshot(fitted);
    expect(await fitOf(snapshotId)).toEqual([{ held_out: 48, found_named: 12, found_unnamed: 12, only_named: 12, only_unnamed: 12, unnamed: 0 }]);
  });
});
