/**
 * The bounds of the candidate expansion: which followees a profile's friends of friends
 * come through, which candidates each of them passes on, the paths back from a candidate
 * who follows the profile, and the holders a collection recommends. Worked out by hand in
 * test/fixtures/bounded-world.ts.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import * as world from '../fixtures/bounded-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { expectWorkedList, workedList, type WorkedRow } from '../support/worked-lists.ts';

const env = useTestEnvironment(world.BOUNDED_WORLD_SETTINGS);

const snapshot = (settings: Record<string, string> = {}) => readySnapshot(env, parseConfig({ ...env.env, ...settings }));

const listOf = (snapshotId: number, name: string) => workedList(env, snapshotId, 'b_', name);

/** The candidates some signal speaks for (score > 0), without the popular filler after them. */
async function evidenceOf(snapshotId: number, name: string) {
  return (await listOf(snapshotId, name)).filter((r) => r.score > 0);
}

const expectList = (actual: WorkedRow[], expected: WorkedRow[]) => expectWorkedList(actual, expected);

describe('bounded candidate expansion', () => {
  let bounded: number;

  it('reaches friends of friends through my first followees only, each passing on its most followed that I do not follow', async () => {
    await ingestRecords(env, world.records);
    bounded = await snapshot();
    expectList(await evidenceOf(bounded, 'me'), world.expectedForMe);
  });

  it('looks for what a followee passes on no further down its list than REC_FOF_PASS_ON_DEPTH', async () => {
    // bob's first 2 are hub, whom I follow, and me: nothing left for me within them.
    const shallow = await snapshot({ REC_FOF_PASS_ON_DEPTH: '2' });
    expectList(await evidenceOf(shallow, 'me'), world.expectedForMe.filter((r) => r.candidate !== 'p4'));
  });

  it('counts every path once the bounds are lifted', async () => {
    expectList(await evidenceOf(await snapshot(world.UNBOUNDED_SETTINGS), 'me'), world.unboundedForMe);
  });

  /** My first hops in a run: (followee's name, exact, how many it follows, how many it passes on to me). */
  async function myHops(snapshotId: number) {
    const hops = await env.ch.query(
      sql`SELECT profile_id, exact, degree, passes_on
          FROM (SELECT f AS pid, exact, degree, passes_on FROM mat_first_hops
                WHERE snapshot_id = ${snapshotId} AND p IN (SELECT pid FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND profile_id = ${world.id('me')})) AS hops
          ALL INNER JOIN (SELECT pid, profile_id FROM mat_profiles WHERE snapshot_id = ${snapshotId}) AS names USING pid
          ORDER BY profile_id`,
      z.object({ profile_id: z.string(), exact: z.coerce.number(), degree: z.coerce.number(), passes_on: z.coerce.number() }),
    );
    return hops.map((h) => [h.profile_id.replace(/^b_/, ''), h.exact, h.degree, h.passes_on]);
  }

  it('counts every path of a profile whose paths number at most REC_FOF_PATHS, whatever the bounds', async () => {
    const exact = await snapshot({ REC_FOF_PATHS: String(world.MY_PATHS) });
    expectList(await evidenceOf(exact, 'me'), world.unboundedForMe);
    // Every followee, each passing on all it follows.
    expect(await myHops(exact)).toEqual([['amy', 1, 3, 3], ['bob', 1, 3, 3], ['cat', 1, 1, 1], ['hub', 1, 4, 4]]);
  });

  it('shares REC_FOF_PATHS among the first followees of a profile with more paths than that', async () => {
    const shared = await snapshot({ REC_FOF_PATHS: String(world.MY_PATHS - 1) });
    expectList(await evidenceOf(shared, 'me'), world.sharedForMe);
    expect(await myHops(shared)).toEqual([['amy', 0, 3, 3], ['bob', 0, 3, 3], ['cat', 0, 1, 3]]);
  });

  /**
   * The world's 16 profiles with paths have 3, 3, 4, 4, 4, 4, 4, 5, 5, 7, 8, 8, 9, 10, 12 (me)
   * and 13 (hub): 103 in all. A budget of 102 takes the first 15 whole (90) and leaves hub
   * 12, so I get all of mine; 100 takes the first 14 whole (78) and leaves me and hub
   * (100 - 78) / 2 = 11 each.
   */
  it("caps every profile's paths where the run's REC_FOF_PATHS_PER_RUN runs out, and no lower than REC_FOF_PATHS", async () => {
    const budgetOf = (snapshotId: number) =>
      env.ch.query(
        sql`SELECT profiles_with_paths, paths_in_all, paths_per_profile FROM mat_path_budget WHERE snapshot_id = ${snapshotId}`,
        z.object({ profiles_with_paths: z.coerce.number(), paths_in_all: z.coerce.number(), paths_per_profile: z.coerce.number() }),
      );
    const enough = await snapshot({ REC_FOF_PATHS_PER_RUN: '102' });
    expect(await budgetOf(enough)).toEqual([{ profiles_with_paths: 16, paths_in_all: 103, paths_per_profile: 12 }]);
    expectList(await evidenceOf(enough, 'me'), world.unboundedForMe);

    const short = await snapshot({ REC_FOF_PATHS_PER_RUN: '100' });
    expect(await budgetOf(short)).toEqual([{ profiles_with_paths: 16, paths_in_all: 103, paths_per_profile: 11 }]);
    expectList(await evidenceOf(short, 'me'), world.sharedForMe);

    const floor = await snapshot({ REC_FOF_PATHS_PER_RUN: '100', REC_FOF_PATHS: String(world.MY_PATHS) });
    expect(await budgetOf(floor)).toEqual([{ profiles_with_paths: 16, paths_in_all: 103, paths_per_profile: world.MY_PATHS }]);
    expectList(await evidenceOf(floor, 'me'), world.unboundedForMe);
  });

  it('has each followee pass on at least REC_FOF_PER_FOLLOWEE, however small its share', async () => {
    const floor = await snapshot({ REC_FOF_PATHS: '8' });
    expectList(await evidenceOf(floor, 'me'), world.expectedForMe);
    expect((await myHops(floor)).map((h) => h[3])).toEqual([2, 2, 2]);
  });

  it('counts a path found both forward and back once', async () => {
    // zed's two followers are both checked now; the one through cat is also a forward path.
    const both = await snapshot({ REC_FOF_PER_FOLLOWER: '2' });
    expectList(await evidenceOf(both, 'me'), world.expectedForMe);
  });

  it('has a collection recommend only its most followed holders', async () => {
    for (const [holder, list] of Object.entries(world.clubLists)) expectList(await evidenceOf(bounded, holder), list);
  });

  it('puts the more followed of two candidates with the same score first', async () => {
    // n1's only evidence is the club, which both other holders share; n3 has 2 followers, n2 has 1.
    const n1 = await evidenceOf(bounded, 'n1');
    expect(n1.map((r) => r.candidate)).toEqual(['n3', 'n2']);
    expect(n1[0]!.score).toBe(n1[1]!.score);
  });

  it('recommends my followers though no path reaches them, naming them when nobody else links us', async () => {
    const n3 = await evidenceOf(bounded, 'n3');
    expect(n3.filter((r) => r.candidate === r.subject).map((r) => r.candidate)).toEqual(['q1', 'q2']);
  });

  it('shows the most followed profiles to a profile with follows but no evidence, rather than nothing', async () => {
    expectList(await listOf(bounded, 'q2'), world.popularForQ2);
  });

  it('fills my short list up with the most followed profiles I neither follow nor have listed, after my own candidates', async () => {
    expectList(await listOf(bounded, 'me'), [...world.expectedForMe, ...world.paddingForMe]);
  });

  it('fills a list up to REC_TOP_K places and no further, and leaves a full one as it is', async () => {
    const six = await snapshot({ REC_TOP_K: '6' });
    expectList(await listOf(six, 'me'), [...world.expectedForMe, ...world.paddingForMe.slice(0, 2)]);
    const three = await snapshot({ REC_TOP_K: '3' });
    expectList(await listOf(three, 'me'), world.expectedForMe.slice(0, 3));
  });

  it('fills the list of a profile outside the follow graph too: n1, after what the club says', async () => {
    expectList(await listOf(bounded, 'n1'), [...world.clubLists.n1, ...world.paddingForN1]);
  });

  it('fits what following me is worth to how often follows are returned, once there are enough follows', async () => {
    const fitOf = async (snapshotId: number) =>
      (await env.ch.query(
        sql`SELECT follows, returned, fitted, follows_you_weight FROM mat_scoring_fit WHERE snapshot_id = ${snapshotId}`,
        z.object({ follows: z.coerce.number(), returned: z.coerce.number(), fitted: z.coerce.number(), follows_you_weight: z.coerce.number() }),
      ))[0];
    // 23 follows; me and bob follow each other: 2 returned, odds 2 / 21, times 31.5.
    const fitted = await snapshot({ REC_FIT_MIN_FOLLOWS: '23', REC_FOLLOWS_YOU_SCALE: '31.5' });
    expect(await fitOf(fitted)).toEqual({ follows: 23, returned: 2, fitted: 1, follows_you_weight: 3 });
    const zed = (await evidenceOf(fitted, 'me'))[0]!;
    expect(zed.candidate).toBe('zed');
    expect(zed.score).toBeCloseTo(world.expectedForMe[0]!.score - 1 + 3, 9);

    const tooFew = await snapshot({ REC_FIT_MIN_FOLLOWS: '24', REC_FOLLOWS_YOU_SCALE: '31.5' });
    expect(await fitOf(tooFew)).toEqual({ follows: 23, returned: 2, fitted: 0, follows_you_weight: 1 });
    expectList(await evidenceOf(tooFew, 'me'), world.expectedForMe);
  });

  it('writes the same lists again on the same data', async () => {
    const all = (snapshotId: number) =>
      env.ch.query(
        sql`SELECT profile_id, rank, candidate_id, score, reason_subject FROM recommendations
            WHERE snapshot_id = ${snapshotId} ORDER BY profile_id, rank`,
        z.object({ profile_id: z.string(), rank: z.coerce.number(), candidate_id: z.string(), score: z.coerce.number(), reason_subject: z.string() }),
      );
    expect(await all(await snapshot())).toEqual(await all(bounded));
  });
});
