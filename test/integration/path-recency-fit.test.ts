/**
 * Whether a run weighs paths by when they were made (pipeline/materialize/path-recency.ts),
 * fitted on its held-out newest follows, on two worlds worked out by hand, with
 * REC_FIT_PLACES = 1: a held-out follow is found when no other candidate scores more.
 *
 * Old friends first (i = 1..12): p_i follows a_i (T-500), b_i (T-100) and newest t_i (T-10),
 * whom a_i (who follows no one else) followed long before (T-1000); b_i follows x_i (T-100)
 * and newest y_i (T-50). 72 follows; moments, 1000 x (follows before + follows at or before)
 * / 72: T-1000 166, T-500 500, T-100 1000, T-50 1500, T-10 1833. p_i holds out t_i; b_i holds
 * out y_i, which is then hidden from every path through b_i too. What is left of p_i's paths:
 *
 *   t_i through a_i (follows 1): 1 / ln(e + 1) = 0.761, made at 166
 *   x_i through b_i (follows 2): 1 / ln(e + 2) = 0.646, made at 1000
 *
 * Plain, t_i scores more: found. With recency, p_i's newest follow left is b_i (1000): x_i
 * keeps its 0.646 and t_i falls to 0.761 x (0.2 + e^(-834/200)) / 1.2 = 0.137: not found. b_i's
 * y_i neither finds (nothing b_i follows leads on). So 24 held out, 12 found only without
 * recency, none only with it: 12 > 0 + 2 √12 = 6.9, recency off.
 *
 * Friends of the moment, added next (j = 1..12), the mirror: p'_j follows b'_j (T-500), a'_j
 * (T-100) and newest t'_j (T-10); b'_j follows only x'_j (T-1000); a'_j follows t'_j (T-100)
 * and newest u'_j (T-50). The same times twice over: the same moments. Plain, x'_j (0.761)
 * beats t'_j (0.646); with recency, t'_j (made at 1000, where p'_j's newest follow left is)
 * keeps 0.646 and x'_j falls to 0.137. Now 48 held out, 12 found only without recency and 12
 * only with it: not worse beyond chance, recency on.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { expectWorkedList, workedList } from '../support/worked-lists.ts';

const env = useTestEnvironment({ REC_FIT_PLACES: '1' });

const id = (name: string) => `rf_${name}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
type Follows = [from: string, to: string, ago: number][];

function world(follows: Follows) {
  const names = new Set(follows.flatMap(([from, to]) => [from, to]));
  return {
    profiles: [...names].map((name) => ({ profileId: id(name), name, addresses: [addressOf(`recency-fit-${name}`)], updatedAt: T })),
    follows: follows.map(([from, to, ago]) => ({ followerProfileId: id(from), followeeProfileId: id(to), followedAt: T - ago })),
  };
}

const oldFriends = world(
  range(12).flatMap((i): Follows => [
    [`a${i}`, `t${i}`, 1000],
    [`p${i}`, `a${i}`, 500],
    [`b${i}`, `x${i}`, 100],
    [`p${i}`, `b${i}`, 100],
    [`b${i}`, `y${i}`, 50],
    [`p${i}`, `t${i}`, 10],
  ]),
);
const friendsOfTheMoment = world(
  range(12).flatMap((j): Follows => [
    [`mb${j}`, `mx${j}`, 1000],
    [`mp${j}`, `mb${j}`, 500],
    [`ma${j}`, `mt${j}`, 100],
    [`mp${j}`, `ma${j}`, 100],
    [`ma${j}`, `mu${j}`, 50],
    [`mp${j}`, `mt${j}`, 10],
  ]),
);

const fitRow = z.object({
  held_out: z.coerce.number(),
  found_plain: z.coerce.number(),
  found_recent: z.coerce.number(),
  only_plain: z.coerce.number(),
  only_recent: z.coerce.number(),
  recency: z.coerce.number(),
});

async function fitOf(snapshotId: number) {
  return env.ch.query(
    sql`SELECT held_out, found_plain, found_recent, only_plain, only_recent, recency FROM mat_recency_fit WHERE snapshot_id = ${snapshotId}`,
    fitRow,
  );
}

const b = 1 / Math.log(Math.E + 2);
const recency = (gap: number) => (0.2 + Math.exp(-gap / 200)) / 1.2;
/** p1's list: x1 (made at 1000) and y1 (1500) through b1, p1's newest follow at 1833. */
const p1 = async (snapshotId: number) => (await workedList(env, snapshotId, 'rf_', 'p1')).filter((r) => r.score > 0);

describe('whether paths weigh by when they were made, fitted on held-out follows', () => {
  it('leaves recency off when the held-out follows are found beyond chance more often without it, and the lists weigh paths alike', async () => {
    await ingestRecords(env, oldFriends);
    const snapshotId = await readySnapshot(env);
    expect(await fitOf(snapshotId)).toEqual([{ held_out: 24, found_plain: 12, found_recent: 0, only_plain: 12, only_recent: 0, recency: 0 }]);
    expectWorkedList(await p1(snapshotId), [
      { candidate: 'x1', score: b, subject: 'b1' },
      { candidate: 'y1', score: b, subject: 'b1' },
    ]);
  });

  it('weighs paths by recency when it is not worse, and the lists use it', async () => {
    await ingestRecords(env, friendsOfTheMoment);
    const snapshotId = await readySnapshot(env);
    expect(await fitOf(snapshotId)).toEqual([{ held_out: 48, found_plain: 12, found_recent: 12, only_plain: 12, only_recent: 12, recency: 1 }]);
    expectWorkedList(await p1(snapshotId), [
      { candidate: 'y1', score: b * recency(333), subject: 'b1' },
      { candidate: 'x1', score: b * recency(833), subject: 'b1' },
    ]);
  });
});
