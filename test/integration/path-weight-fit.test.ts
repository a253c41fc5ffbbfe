/**
 * What a run fits to weigh a friend-of-friend path's middle (pipeline/materialize/path-weight-fit.ts),
 * on two worlds worked out by hand, with REC_FIT_PLACES = 1: a held-out follow is found when
 * no other candidate scores more.
 *
 * Quiet paths (b1 and b2 each follow d and o1..o9, 10 in all): p1..p10 each follow m_i, b1, b2,
 * and newest t_i, whom m_i (who follows no one else) follows. Holding out t_i leaves t_i one
 * path through m_i (degree 1) and d, o1..o9 two each through b1 and b2 (degree 10):
 *   Adamic-Adar:           t_i 1/ln(e+1) = 0.761 < 2/ln(e+10) = 0.783  -> 10 score more: not found
 *   resource allocation:   t_i 1/1 = 1           > 2/10 = 0.2          -> found
 * b1 and b2 are sampled too (two follows or more), but whichever of their follows is held
 * out, nobody else they reach follows it: neither weight finds it. So 12 held out, resource
 * allocation better for 10, Adamic-Adar for none: 10 > 0 + 2 √10 = 6.3, resource allocation.
 *
 * Busy paths, added next (c1 and c2 each follow s and w1..w9): r1..r12 each follow n_j, c1, c2
 * and newest s, with n_j following only q_j. Holding out s leaves it two paths through c1 and
 * c2 (0.783, tied with w1..w9, none above it: found) against q_j's one through n_j: under
 * resource allocation q_j's 1 is above s's 0.2, so not found. Now 26 held out (c1 and c2
 * find nothing, as b1 and b2), Adamic-Adar better for 12, resource allocation for 10:
 * Adamic-Adar.
 *
 * A held-out follow is hidden from every path, added last: k follows f and g, then newest
 * h; f follows h, then newest s; g follows s, then newest e. Each holds out its newest. Were
 * f's held-out s left on the path through f, s (through f and g) would outscore h (through f
 * alone) and k's h would not be found; hidden, s has g's path only, ties h, and h is found
 * by both weights (f and g follow 2 each). f and g find nothing they held out (s and e are
 * followed by no one else left). Now 29 held out, each weight finding one more.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

// Paths weigh by their middle alone here: when they were made has its own test (path-recency.test.ts).
const env = useTestEnvironment({ REC_FIT_PLACES: '1', REC_PATH_RECENCY: 'never' });

const id = (name: string) => `w_${name}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function world(follows: Record<string, { followees: string[]; at: number }[]>) {
  const names = new Set(Object.entries(follows).flatMap(([follower, groups]) => [follower, ...groups.flatMap((g) => g.followees)]));
  return {
    profiles: [...names].map((name) => ({ profileId: id(name), name, addresses: [addressOf(`weights-${name}`)], updatedAt: T })),
    follows: Object.entries(follows).flatMap(([follower, groups]) =>
      groups.flatMap(({ followees, at }) =>
        followees.map((followee) => ({ followerProfileId: id(follower), followeeProfileId: id(followee), followedAt: at })),
      ),
    ),
  };
}

const others = (prefix: string) => range(9).map((i) => `${prefix}${i}`);
const quietPaths = world({
  b1: [{ followees: ['d', ...others('o')], at: T - 100 }],
  b2: [{ followees: ['d', ...others('o')], at: T - 100 }],
  ...Object.fromEntries(range(10).map((i) => [`m${i}`, [{ followees: [`t${i}`], at: T - 100 }]])),
  ...Object.fromEntries(range(10).map((i) => [`p${i}`, [{ followees: [`m${i}`, 'b1', 'b2'], at: T - 50 }, { followees: [`t${i}`], at: T - 10 }]])),
});
const busyPaths = world({
  c1: [{ followees: ['s', ...others('w')], at: T - 100 }],
  c2: [{ followees: ['s', ...others('w')], at: T - 100 }],
  ...Object.fromEntries(range(12).map((j) => [`n${j}`, [{ followees: [`q${j}`], at: T - 100 }]])),
  ...Object.fromEntries(range(12).map((j) => [`r${j}`, [{ followees: [`n${j}`, 'c1', 'c2'], at: T - 50 }, { followees: ['s'], at: T - 10 }]])),
});

const hiddenFromPaths = world({
  f: [{ followees: ['h'], at: T - 100 }, { followees: ['s'], at: T - 10 }],
  g: [{ followees: ['s'], at: T - 100 }, { followees: ['e'], at: T - 10 }],
  k: [{ followees: ['f', 'g'], at: T - 50 }, { followees: ['h'], at: T - 10 }],
});

const fitRow = z.object({
  held_out: z.coerce.number(),
  found_adamic_adar: z.coerce.number(),
  found_resource_allocation: z.coerce.number(),
  only_adamic_adar: z.coerce.number(),
  only_resource_allocation: z.coerce.number(),
  path_weight: z.string(),
});

async function fitOf(snapshotId: number) {
  return env.ch.query(
    sql`SELECT held_out, found_adamic_adar, found_resource_allocation, only_adamic_adar, only_resource_allocation, path_weight
        FROM mat_path_weight_fit WHERE snapshot_id = ${snapshotId}`,
    fitRow,
  );
}

/** p1's scored candidates: d and o1..o9, each through b1 and b2. */
async function scoresForP1(snapshotId: number) {
  const rows = await env.ch.query(
    sql`SELECT candidate_id, fof_score FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND profile_id = ${id('p1')} AND score > 0 ORDER BY candidate_id`,
    z.object({ candidate_id: z.string(), fof_score: z.coerce.number() }),
  );
  return rows;
}

describe('the weight of a path’s middle, fitted on held-out follows', () => {
  it('weighs by resource allocation when it places the held-out follows higher beyond chance, and the lists use it', async () => {
    await ingestRecords(env, quietPaths);
    const snapshotId = await readySnapshot(env);
    expect(await fitOf(snapshotId)).toEqual([
      { held_out: 12, found_adamic_adar: 0, found_resource_allocation: 10, only_adamic_adar: 0, only_resource_allocation: 10, path_weight: 'resource-allocation' },
    ]);
    const scores = await scoresForP1(snapshotId);
    expect(scores.map((r) => r.candidate_id)).toEqual(['d', ...others('o')].map(id).sort());
    for (const row of scores) expect(row.fof_score, row.candidate_id).toBeCloseTo(2 / 10, 9);
  });

  it('writes each held-out follow’s place under both weights, plain and recent, counted up to REC_FIT_PLACES', async () => {
    await ingestRecords(env, quietPaths);
    const snapshotId = await readySnapshot(env);
    const places = await env.ch.query(
      sql`SELECT profile_id, by_adamic_adar, by_resource_allocation, by_adamic_adar_recent, by_resource_allocation_recent
          FROM mat_held_out_places AS places
          ALL INNER JOIN (SELECT pid AS p, profile_id FROM mat_profiles WHERE snapshot_id = ${snapshotId}) AS profiles USING p
          WHERE snapshot_id = ${snapshotId} ORDER BY profile_id`,
      z.object({ profile_id: z.string(), by_adamic_adar: z.number(), by_resource_allocation: z.number(), by_adamic_adar_recent: z.number(), by_resource_allocation_recent: z.number() }),
    );
    // t_i has 10 candidates above it by Adamic-Adar, counted up to 1, and none by resource
    // allocation; every path of p_i was made at the same time, so recency changes no place.
    // b1's and b2's held-out follows are no candidates of theirs: 1 each.
    const place = (aa: number, ra: number) => ({ by_adamic_adar: aa, by_resource_allocation: ra, by_adamic_adar_recent: aa, by_resource_allocation_recent: ra });
    expect(places).toEqual(
      [...['b1', 'b2'].map((name) => ({ profile_id: id(name), ...place(1, 1) })), ...range(10).map((i) => ({ profile_id: id(`p${i}`), ...place(1, 0) }))].sort((a, b) =>
        a.profile_id < b.profile_id ? -1 : 1,
      ),
    );
  });

  it('keeps Adamic-Adar when resource allocation is not the better of the two', async () => {
    await ingestRecords(env, busyPaths);
    const snapshotId = await readySnapshot(env);
    expect(await fitOf(snapshotId)).toEqual([
      { held_out: 26, found_adamic_adar: 12, found_resource_allocation: 10, only_adamic_adar: 12, only_resource_allocation: 10, path_weight: 'adamic-adar' },
    ]);
    for (const row of await scoresForP1(snapshotId)) expect(row.fof_score, row.candidate_id).toBeCloseTo(2 / Math.log(Math.E + 10), 9);
  });

  it("hides a sampled profile's held-out follows from the paths through it, as everyone's newest follows are unknown when one makes the next", async () => {
    await ingestRecords(env, hiddenFromPaths);
    expect(await fitOf(await readySnapshot(env))).toEqual([
      { held_out: 29, found_adamic_adar: 13, found_resource_allocation: 11, only_adamic_adar: 12, only_resource_allocation: 10, path_weight: 'adamic-adar' },
    ]);
  });
});
