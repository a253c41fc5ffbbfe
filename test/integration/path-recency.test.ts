/**
 * A friend-of-friend path weighs by how near its follow is to the caller's newest follow
 * (pipeline/materialize/path-recency.ts), here always (REC_PATH_RECENCY=always; when the fit
 * turns it on or off: path-recency-fit.test.ts). Worked out by hand. Four follows:
 *
 *   z -> old (T-400)   z -> q (T-300)   z -> new (T-200)   p -> z (T-200)
 *
 * Moments, 1000 x (follows before + follows at or before) / 4: T-400 250, T-300 750, T-200
 * 1500. p's newest follow is at 1500; z follows 3, so each path through it weighs
 * w = 1 / ln(e + 3), times (0.2 + e^(-gap / 200)) / 1.2:
 *
 *   p's candidate  gap                 score
 *   new            0                   w
 *   q              750                 w (0.2 + e^-3.75) / 1.2
 *   old            1250                w (0.2 + e^-6.25) / 1.2
 *
 * q follows nobody, so it has no newest follow and its paths (co-followed, through z) weigh w:
 * z first (it follows q: REC_FOLLOWS_YOU_BONUS 1, with too few follows to fit, plus a
 * millionth), then new and old, tied, the lower profile id first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { computeOnDemand } from '../../pipeline/materialize/cold-start.ts';
import { materializeQuerySettings, scoringParams } from '../../pipeline/materialize/scoring.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { T, addressOf } from '../fixtures/small-world.ts';
import { ingestRecords, materializeNow } from '../support/pipeline-harness.ts';
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
    follows: [follow('z', 'old', 400), follow('z', 'q', 300), follow('z', 'new', 200), follow('p', 'z', 200)],
  });
  const view = await materializeNow(env);
  if (view.state !== 'done') throw new Error(`materialization ${view.state}: ${view.error}`);
  snapshotId = view.result!.snapshotId;
});

describe('when a path was made', () => {
  it("places each follow in the run's time by the follows made before it, those of its own second counted half", async () => {
    const times = await env.ch.query(
      sql`SELECT toUInt32(followed_at) AS at, through, moment FROM mat_follow_times WHERE snapshot_id = ${snapshotId} ORDER BY followed_at`,
      z.object({ at: z.coerce.number(), through: z.coerce.number(), moment: z.coerce.number() }),
    );
    expect(times).toEqual([
      { at: T - 400, through: 1, moment: 250 },
      { at: T - 300, through: 2, moment: 750 },
      { at: T - 200, through: 4, moment: 1500 },
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
      { follower: id('p'), followee: id('z'), moment: 1500 },
      { follower: id('z'), followee: id('new'), moment: 1500 },
      { follower: id('z'), followee: id('old'), moment: 250 },
      { follower: id('z'), followee: id('q'), moment: 750 },
    ]);
  });

  it('weighs a path by how near its follow is to my newest: new, then q, then old, each through z', async () => {
    expectWorkedList(await scored('p'), [
      { candidate: 'new', score: w, subject: 'z' },
      { candidate: 'q', score: w * recency(750), subject: 'z' },
      { candidate: 'old', score: w * recency(1250), subject: 'z' },
    ]);
  });

  it('leaves the paths of a profile that follows nobody as they are', async () => {
    expectWorkedList(await scored('q'), [
      { candidate: 'z', score: 1.000001, subject: 'z' },
      { candidate: 'new', score: w, subject: 'z' },
      { candidate: 'old', score: w, subject: 'z' },
    ]);
  });

  it("places a newcomer's follow made after the run at 2000, after every follow of the snapshot, in a list computed on demand", async () => {
    await ingestRecords(env, { profiles: [profile('newcomer')], follows: [follow('newcomer', 'z', 100)] });
    const computed = await computeOnDemand(env.ch, snapshotId, id('newcomer'), scoringParams(env.config), materializeQuerySettings(env.config));
    expect(computed).toMatchObject({ computed: true });
    expectWorkedList(await scored('newcomer'), [
      { candidate: 'new', score: w * recency(500), subject: 'z' },
      { candidate: 'q', score: w * recency(1250), subject: 'z' },
      { candidate: 'old', score: w * recency(1750), subject: 'z' },
    ]);
  });
});
