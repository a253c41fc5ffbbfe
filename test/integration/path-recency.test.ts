/**
 * A friend-of-friend path weighs by how near its follow is to the caller's newest follow
 * (pipeline/materialize/path-recency.ts), here always (REC_PATH_RECENCY=always; when the fit
 * turns it on or off: path-recency-fit.test.ts). Worked out by hand. Five follows:
 *
 *   z -> old (T-400)   z -> new (T-300)   z -> q (T-250)   p -> z (T-200)   new -> p (T-100)
 *
 * Moments, 1000 x (follows before + follows at or before) / 5: 200, 600, 1000, 1400, 1800.
 * p's newest follow is at 1400; z follows 3, so each path through it weighs w = 1 / ln(e + 3),
 * times (0.2 + e^(-gap / 200)) / 1.2. new follows p, and began after p's newest follow: it
 * counts the follows-you weight twice (REC_FOLLOWS_YOU_BONUS 1, with too few follows to fit,
 * plus a millionth each time):
 *
 *   p's candidate  evidence                        score
 *   new            a new follower; z at gap 800    2.000002 + w (0.2 + e^-4) / 1.2
 *   q              z at gap 400                    w (0.2 + e^-2) / 1.2
 *   old            z at gap 1200                   w (0.2 + e^-6) / 1.2
 *
 * q follows nobody, so it has no newest follow and its paths (co-followed, through z) weigh
 * w: z first (it follows q: 1.000001), then new and old, tied, the lower profile id first.
 *
 * A newcomer who follows z after the run (T-50) gets its list on demand: its newest follow is
 * at 2000, after every follow of the snapshot, so q (gap 1000) comes before new (1400) and old
 * (1800).
 *
 * Last, with that follow a sixth, moments 166, 500, 833, 1166, 1500, 1833,
 * and p's paths sampled instead of counted in full: new's path through z is then a path back
 * (from a candidate who follows p), at gap 666.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { computeOnDemand } from '../../pipeline/materialize/cold-start.ts';
import { momentAtSql } from '../../pipeline/materialize/path-recency.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, readySnapshot } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';
import { expectWorkedList, workedList } from '../support/worked-lists.ts';

const env = useTestEnvironment({ REC_PATH_RECENCY: 'always' });
const id = (name: string) => `rc_${name}`;
const follow = (from: string, to: string, ago: number) => ({ followerProfileId: id(from), followeeProfileId: id(to), followedAt: T - ago });
const profile = (name: string) => ({ profileId: id(name), name, addresses: [addressOf(`recency-${name}`)], updatedAt: T });
const w = 1 / Math.log(Math.E + 3);
const recency = (gap: number) => (0.2 + Math.exp(-gap / 200)) / 1.2;

let snapshotId: number;
/** The scored part of a list: the most followed that fill it up after its own candidates score 0. */
const scored = async (name: string) => (await workedList(env, snapshotId, 'rc_', name)).filter((r) => r.score > 0);

beforeAll(async () => {
  await ingestRecords(env, {
    profiles: ['p', 'z', 'old', 'q', 'new'].map(profile),
    follows: [follow('z', 'old', 400), follow('z', 'new', 300), follow('z', 'q', 250), follow('p', 'z', 200), follow('new', 'p', 100)],
  });
  snapshotId = await snapshot();
});

const snapshot = (settings: Record<string, string> = {}) => readySnapshot(env, parseConfig({ ...env.env, ...settings }));

/** p's list, its paths through z to new, q and old at these gaps from its newest follow. */
const pList = (gaps: { new: number; q: number; old: number }) => [
  { candidate: 'new', score: 2.000002 + w * recency(gaps.new), subject: 'z' },
  { candidate: 'q', score: w * recency(gaps.q), subject: 'z' },
  { candidate: 'old', score: w * recency(gaps.old), subject: 'z' },
];

describe('when a path was made', () => {
  it("places each follow in the run's time by the follows made before it, those of its own second counted half", async () => {
    const times = await env.ch.query(
      sql`SELECT toUInt32(since) AS at, seconds, through, moment FROM mat_follow_times WHERE snapshot_id = ${snapshotId} ORDER BY since`,
      z.object({ at: z.coerce.number(), seconds: z.coerce.number(), through: z.coerce.number(), moment: z.coerce.number() }),
    );
    expect(times).toEqual([
      { at: T - 400, seconds: 1, through: 1, moment: 200 },
      { at: T - 300, seconds: 1, through: 2, moment: 600 },
      { at: T - 250, seconds: 1, through: 3, moment: 1000 },
      { at: T - 200, seconds: 1, through: 4, moment: 1400 },
      { at: T - 100, seconds: 1, through: 5, moment: 1800 },
    ]);
    const names = new Map(
      (await env.ch.query(sql`SELECT pid, profile_id FROM mat_profiles WHERE snapshot_id = ${snapshotId}`, z.object({ pid: z.coerce.number(), profile_id: z.string() }))).map(
        (r) => [r.pid, r.profile_id],
      ),
    );
    const rows = await env.ch.query(
      sql`SELECT src, dst, moment FROM mat_follow_edges WHERE snapshot_id = ${snapshotId}`,
      z.object({ src: z.coerce.number(), dst: z.coerce.number(), moment: z.coerce.number() }),
    );
    const edges = rows
      .map((r) => ({ follower: names.get(r.src)!, followee: names.get(r.dst)!, moment: r.moment }))
      .sort((a, b) => a.follower.localeCompare(b.follower) || a.followee.localeCompare(b.followee));
    expect(edges).toEqual([
      { follower: id('new'), followee: id('p'), moment: 1800 },
      { follower: id('p'), followee: id('z'), moment: 1400 },
      { follower: id('z'), followee: id('new'), moment: 600 },
      { follower: id('z'), followee: id('old'), moment: 200 },
      { follower: id('z'), followee: id('q'), moment: 1000 },
    ]);
  });

  it('weighs a path by how near its follow is to my newest: new (who also follows me), then q, then old, each through z', async () => {
    expectWorkedList(await scored('p'), pList({ new: 800, q: 400, old: 1200 }));
  });

  it('leaves the paths of a profile that follows nobody as they are', async () => {
    expectWorkedList(await scored('q'), [
      { candidate: 'z', score: 1.000001, subject: 'z' },
      { candidate: 'new', score: w, subject: 'z' },
      { candidate: 'old', score: w, subject: 'z' },
    ]);
  });

  it("places a newcomer's follow made after the run at 2000, after every follow of the snapshot, in a list computed on demand", async () => {
    await ingestRecords(env, { profiles: [profile('newcomer')], follows: [follow('newcomer', 'z', 50)] });
    const computed = await computeOnDemand(env.ch, snapshotId, id('newcomer'), scoringParams(env.config), materializeQuerySettings(env.config));
    expect(computed).toMatchObject({ computed: true });
    expectWorkedList(await scored('newcomer'), [
      { candidate: 'q', score: w * recency(1000), subject: 'z' },
      { candidate: 'new', score: w * recency(1400), subject: 'z' },
      { candidate: 'old', score: w * recency(1800), subject: 'z' },
    ]);
  });

  it('weighs a path back from a candidate who follows me by its time too, when my paths are sampled', async () => {
    const sampled = await snapshot({ REC_FOF_PATHS: '0', REC_FOF_PATHS_PER_RUN: '0' });
    const exact = await env.ch.query(
      sql`SELECT countIf(exact = 1) AS exact FROM mat_first_hops WHERE snapshot_id = ${sampled}`,
      z.object({ exact: z.coerce.number() }),
    );
    expect(exact).toEqual([{ exact: 0 }]);
    expectWorkedList((await workedList(env, sampled, 'rc_', 'p')).filter((r) => r.score > 0), pList({ new: 666, q: 333, old: 1000 }));
  });
});

/**
 * Follows made further apart than TIME_SPANS seconds are placed by span, not by second. Here
 * 2^21 seconds apart: spans of intDiv(2^21, 2^20) + 1 = 3 seconds, starting at multiples of 3.
 * a follows b and c one second apart, in one span: each counts the other half, 1000 x (0 + 2)
 * / 3 = 666; b's follow of d, alone in its span, is at 1000 x (2 + 3) / 3 = 1666.
 */
describe('when follows are further apart than a second per span', () => {
  const spanEnv = useTestEnvironment({ REC_PATH_RECENCY: 'always' });
  const first = 3 * Math.floor((T - 2 ** 21 - 10) / 3);
  const at = (from: string, to: string, time: number) => ({ followerProfileId: id(from), followeeProfileId: id(to), followedAt: time });

  it('counts the follows of one span half each, and places a time on demand by the span that holds it', async () => {
    await ingestRecords(spanEnv, {
      profiles: ['a', 'b', 'c', 'd'].map(profile),
      follows: [at('a', 'b', first), at('a', 'c', first + 1), at('b', 'd', first + 2 ** 21)],
    });
    const spanSnapshot = await readySnapshot(spanEnv);
    const times = await spanEnv.ch.query(
      sql`SELECT toUInt32(since) AS at, seconds, through, moment FROM mat_follow_times WHERE snapshot_id = ${spanSnapshot} ORDER BY since`,
      z.object({ at: z.coerce.number(), seconds: z.coerce.number(), through: z.coerce.number(), moment: z.coerce.number() }),
    );
    expect(times).toEqual([
      { at: first, seconds: 3, through: 2, moment: 666 },
      { at: first + 2 ** 21 - 2, seconds: 3, through: 3, moment: 1666 },
    ]);
    const edgeMoments = await spanEnv.ch.query(
      sql`SELECT moment FROM mat_follow_edges WHERE snapshot_id = ${spanSnapshot} ORDER BY moment`,
      z.object({ moment: z.coerce.number() }),
    );
    expect(edgeMoments.map((r) => r.moment)).toEqual([666, 666, 1666]);
    // A live follow read on demand: inside the first span, between the spans, after the last.
    const momentAt = async (time: number) =>
      (await spanEnv.ch.query(sql`SELECT ${momentAtSql(spanSnapshot, sql`toDateTime(${time})`)} AS moment`, z.object({ moment: z.coerce.number() })))[0]!.moment;
    expect([await momentAt(first + 2), await momentAt(first + 3), await momentAt(first + 2 ** 21 + 1)]).toEqual([666, 1333, 2000]);
  });
});
