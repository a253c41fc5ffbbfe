/**
 * Recommendations for one profile the newest snapshot has no list for (a user who signed
 * up after the nightly run): the same ranking SQL as a nightly bucket, with the caller's
 * own facts read live from the raw tables, restricted to that profile, and the rest of the
 * graph from the snapshot's working set. The rows go into the snapshot under the bucket
 * ON_DEMAND_BUCKET, so paging and cursors work as for everyone else.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import { coldStartJobSchema } from '../../shared/queues.ts';
import { publishLists } from '../serving/list-publisher.ts';
import type { ServingWriter } from '../serving/serving-writer.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { RANKED_COLUMNS, RECOMMENDATION_COLUMNS } from './recommendation-columns.ts';
import type { CallerFacts } from './caller-facts.ts';
import { literalRowsSql, writtenOutRowsSql } from './literal-rows.ts';
import { namedCandidatesSql, rankedCandidatesSql } from './candidates.ts';
import { popularPaddingSql } from './popular-padding.ts';
import { firstHopsSql, followerHopsSql } from './friends-of-friends.ts';
import { exactCallersSql, pathsPerProfileSql } from './path-budget.ts';
import { momentAtSql } from './path-recency.ts';
import { materializeQuerySettings, scoringParams, type ScoringParams } from './scoring.ts';
import { eligibleHoldingsSql, followeesSql, holdingsSql, interactionsSql, socialFollowsSql } from './signal-inputs.ts';
import { writtenOutTransfers } from './own-transfers.ts';
import { newestActivityTime } from './working-set.ts';
import { unnamedPathsChosen } from './unnamed-paths-fit.ts';

/** The bucket number of rows computed on demand (see the recommendations table). */
export const ON_DEMAND_BUCKET = 65_535;

/** The longest on-demand statement ClickHouse parses: room for a caller who follows some hundred thousand profiles. */
const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;

const liveProfileRow = z.object({ addresses: z.array(z.string()), social_username: z.string() });
const pidRow = z.object({ pid: z.coerce.number() });
const listedRow = z.object({ nightly: z.coerce.number(), on_demand: z.coerce.number() });

export interface OnDemandResult {
  rows: number;
  /** False when the snapshot already had the profile's ranked list: a nightly one, or one an earlier attempt ranked (filled up here if it was not). */
  computed: boolean;
}

export async function computeOnDemand(
  ch: ClickHouse,
  snapshotId: number,
  profileId: string,
  params: ScoringParams,
  settings: QuerySettings,
): Promise<OnDemandResult> {
  const listed = await listedRows(ch, snapshotId, profileId);
  if (listed.nightly > 0) return { rows: listed.nightly, computed: false };
  const [profile] = await ch.query(
    sql`SELECT addresses, social_username FROM profiles FINAL WHERE profile_id = ${profileId}`,
    liveProfileRow,
  );
  if (!profile) return { rows: 0, computed: true };
  // A profile the snapshot knows keeps its dense id, so that it is never its own candidate.
  const [known] = await ch.query(
    sql`SELECT pid FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId}`,
    pidRow,
  );
  const pid = known?.pid ?? 0;
  // The caller's facts are written into its statements (liveFollows), which may be longer than
  // ClickHouse parses by default (256 KiB): a few hundred bytes for each profile it follows.
  const writtenOut: QuerySettings = { ...settings, max_query_size: String(MAX_STATEMENT_BYTES) };
  const follows = await liveFollows(ch, snapshotId, profileId, pid);
  const facts = await liveFacts(ch, snapshotId, pid, follows, profile, params, await newestActivityTime(ch), writtenOut);
  // An attempt that died after ranking the list leaves its rows: its retry only fills them up.
  if (listed.onDemand === 0) {
    const ranked = await writtenOutRanking(ch, pid, rankedCandidatesSql(snapshotId, facts, params, await unnamedPathsChosen(ch, snapshotId)), writtenOut);
    await ch.command(
      sql`
        INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
        SELECT ${snapshotId}, ${ON_DEMAND_BUCKET}, ${profileId}, ${RANKED_COLUMNS}
        FROM (${namedCandidatesSql(snapshotId, ranked, 'ranked only')})`,
      settings,
    );
  }
  // Filled up as a nightly list is; a list that is full, or was filled already, gets nothing more.
  const target = {
    bucket: ON_DEMAND_BUCKET,
    callers: sql`SELECT toUInt32(${pid}) AS p, ${profileId} AS profile_id`,
    followees: facts.followees,
    // Its rows may come from an earlier attempt: read back from recommendations, by dense ids.
    listed: sql`
      SELECT toUInt32(${pid}) AS p, pid AS c FROM mat_profiles
      WHERE snapshot_id = ${snapshotId} AND profile_id IN
            (SELECT candidate_id FROM recommendations WHERE snapshot_id = ${snapshotId} AND bucket = ${ON_DEMAND_BUCKET} AND profile_id = ${profileId})`,
  };
  await ch.command(popularPaddingSql(snapshotId, target, params), writtenOut);
  const after = await listedRows(ch, snapshotId, profileId);
  return { rows: after.onDemand, computed: listed.onDemand === 0 };
}

/**
 * The profile's follows now, among the snapshot's profiles: whom it follows and who follows
 * it, with when each began, and when it last followed anyone at all. Read once, before the
 * ranking: the ranking SQL names the caller's follows in dozens of places, and ClickHouse
 * reads a subquery again wherever it appears, so as subqueries of the raw follows table they
 * cost a scan each (a caller's followers are found by followee, which the table is not
 * ordered by): 46-76 s for one list in a 10 k-profile world, where the COLD_START_WAIT_MS
 * the API waits is 5 s (docs/benchmarks.md). As literal rows (literal-rows.ts) they cost nothing
 * to read again.
 */
interface LiveFollows {
  /** Dense ids of the snapshot's profiles it follows, and when each follow began (unix seconds). */
  followees: { pids: number[]; since: number[] };
  /** The same of those who follow it. */
  followers: { pids: number[]; since: number[] };
  /** When it last followed anyone (also a profile the snapshot does not hold); undefined if it follows nobody. */
  newestOwnFollow: number | undefined;
}

const followRow = z.object({ other: z.coerce.number(), since: z.coerce.number() });
const newestRow = z.object({ follows: z.coerce.number(), newest: z.coerce.number() });

async function liveFollows(ch: ClickHouse, snapshotId: number, profileId: string, pid: number): Promise<LiveFollows> {
  const followees = await ch.query(
    sql`SELECT f AS other, toUInt32(followed_at) AS since
        FROM (${followeesSql(snapshotId, sql`SELECT ${profileId} AS profile_id, toUInt32(${pid}) AS p`, sql`follower_profile_id = ${profileId}`)})
        ORDER BY other`,
    followRow,
  );
  // By followee, which follows_by_followee is ordered by (migration 053): one range, not a scan
  // of every follow's followee; their dense ids by their ids, not with every profile's in memory
  // (GLOBAL: on a cluster follows_by_followee is Distributed).
  const followers = await ch.query(
    sql`SELECT c AS other, toUInt32(followed_at) AS since
        FROM
        (
            SELECT follower_profile_id, followed_at FROM follows_by_followee FINAL
            WHERE followee_profile_id = ${profileId} AND active = 1
        ) AS follows
        ALL INNER JOIN
        (
            SELECT profile_id AS follower_profile_id, pid AS c FROM mat_profiles
            WHERE snapshot_id = ${snapshotId} AND profile_id GLOBAL IN (SELECT follower_profile_id FROM follows_by_followee WHERE followee_profile_id = ${profileId})
        ) AS followers USING follower_profile_id
        ORDER BY other`,
    followRow,
  );
  const [newest] = await ch.query(
    sql`SELECT count() AS follows, toUInt32(max(followed_at)) AS newest FROM follows FINAL WHERE follower_profile_id = ${profileId} AND active = 1`,
    newestRow,
  );
  const columns = (rows: z.infer<typeof followRow>[]) => ({ pids: rows.map((r) => r.other), since: rows.map((r) => r.since) });
  return {
    followees: columns(followees),
    followers: columns(followers),
    newestOwnFollow: newest && newest.follows > 0 ? newest.newest : undefined,
  };
}

/** (p, <other>, followed_at): follows as literal rows of the caller `pid`; `other` names the column of the other profile. */
function followRowsSql(pid: number, follows: LiveFollows['followees'], other: 'f' | 'c'): SqlFragment {
  return literalRowsSql(pid, { [other]: 'UInt32', followed_at: 'DateTime' }, { [other]: follows.pids, followed_at: follows.since });
}

const HOP_TYPES = { f: 'UInt32', degree: 'UInt32', exact: 'UInt8', passes_on: 'UInt32' } as const;

/**
 * (p, f, degree, exact, passes_on): the caller's hops (firstHopsSql, followerHopsSql) read once
 * and written out, as its follows are: the ranking names them several times, and each is a few
 * joins over the working set (whether the caller gets every path, each followee's degree).
 */
function writtenOutHops(ch: ClickHouse, pid: number, hops: SqlFragment, settings: QuerySettings): Promise<SqlFragment> {
  return writtenOutRowsSql(ch, pid, HOP_TYPES, hops, 'f', settings);
}

/** rankedCandidatesSql's columns after p. */
const RANKED_TYPES = {
  rank: 'UInt32',
  c: 'UInt32',
  score: 'Float64',
  reason_kind: 'UInt8',
  reason_chain_id: 'UInt32',
  subject_pid: 'UInt32',
  subject_collection: 'UInt32',
  social_score: 'Float64',
  counterparty_score: 'Float64',
  nft_score: 'Float64',
  fof_score: 'Float64',
} as const;

/**
 * The caller's ranked list (rankedCandidatesSql's rows) read once and written out, for the
 * statement that names it, as a nightly bucket ranks into mat_ranked and names from there: the
 * naming's lookups then read only the ids ranked. With the ranking inline beside lookups of
 * every profile's name, ClickHouse 18.16 took 0.4 s longer than the ranking and the lookups
 * apart, in a world of 100 k profiles.
 */
function writtenOutRanking(ch: ClickHouse, pid: number, ranking: SqlFragment, settings: QuerySettings): Promise<SqlFragment> {
  return writtenOutRowsSql(ch, pid, RANKED_TYPES, ranking, 'rank', settings);
}

const momentRow = z.object({ moment: z.coerce.number() });

/**
 * (p, newest_moment, follows_anyone = 1): the caller's newest live follow of a snapshot
 * profile, placed among the snapshot's follows (a later one: 2000), read once and written
 * out; no row when it follows none of them.
 */
async function writtenOutNewest(ch: ClickHouse, snapshotId: number, pid: number, followees: LiveFollows['followees'], settings: QuerySettings): Promise<SqlFragment> {
  const types = { newest_moment: 'UInt16', follows_anyone: 'UInt8' } as const;
  if (followees.since.length === 0) return literalRowsSql(pid, types, { newest_moment: [], follows_anyone: [] });
  const newest = followees.since.reduce((a, b) => Math.max(a, b));
  const [row] = await ch.query(sql`SELECT ${momentAtSql(snapshotId, sql`toDateTime(${newest})`)} AS moment`, momentRow, settings);
  return literalRowsSql(pid, types, { newest_moment: [row!.moment], follows_anyone: [1] });
}

/** The profile's own facts, live, as the CallerFacts of one caller with dense id `pid`, each written out. */
async function liveFacts(
  ch: ClickHouse,
  snapshotId: number,
  pid: number,
  live: LiveFollows,
  profile: z.infer<typeof liveProfileRow>,
  params: ScoringParams,
  asOf: number,
  settings: QuerySettings,
): Promise<CallerFacts> {
  const p = sql`toUInt32(${pid})`;
  const callers =
    profile.addresses.length > 0
      ? { addresses: sql`SELECT arrayJoin(${profile.addresses}) AS address, ${p} AS p`, own: await writtenOutTransfers(ch, profile.addresses, settings) }
      : undefined;
  const followers = followRowsSql(pid, live.followers, 'c');
  const follows = {
    followees: followRowsSql(pid, live.followees, 'f'),
    followers: sql`SELECT p, c FROM (${followers})`,
  };
  // A follower who began after the caller's newest follow of its own (none when it follows nobody).
  const newest = live.newestOwnFollow;
  const isNew = live.followers.since.map((since) => newest !== undefined && since > newest);
  const newFollowers = {
    pids: live.followers.pids.filter((_, i) => isNew[i]),
    since: live.followers.since.filter((_, i) => isNew[i]),
  };
  const hopCallers = { ...follows, exact: exactCallersSql(snapshotId, follows, pathsPerProfileSql(snapshotId, params)) };
  return {
    ...follows,
    // Written out in the statement: no table to wait for.
    lateFollows: follows,
    newFollowers: sql`SELECT p, c FROM (${followRowsSql(pid, newFollowers, 'c')})`,
    newestFollows: await writtenOutNewest(ch, snapshotId, pid, live.followees, settings),
    firstHops: await writtenOutHops(ch, pid, firstHopsSql(snapshotId, hopCallers, params), settings),
    followerHops: await writtenOutHops(ch, pid, followerHopsSql(snapshotId, hopCallers, params), settings),
    socialFollows: socialFollowsSql(sql`SELECT ${profile.social_username} AS social_username, ${p} AS p`, profile.social_username),
    interactions: callers ? interactionsSql(snapshotId, params, asOf, callers) : NO_INTERACTIONS,
    holdings: callers ? eligibleHoldingsSql(snapshotId, holdingsSql(callers)) : NO_HOLDINGS,
  };
}

const NO_INTERACTIONS: SqlFragment = sql`
  SELECT toUInt32(0) AS p, '' AS counterparty, toUInt32(0) AS chain_id, toUInt32(0) AS interactions, toFloat64(0) AS weight
  WHERE 0`;
const NO_HOLDINGS: SqlFragment = sql`SELECT toUInt32(0) AS p, toUInt32(0) AS collection WHERE 0`;

/** The profile's rows in the snapshot: from the nightly run, and computed on demand. */
async function listedRows(ch: ClickHouse, snapshotId: number, profileId: string): Promise<{ nightly: number; onDemand: number }> {
  const [row] = await ch.query(
    sql`SELECT countIf(bucket != ${ON_DEMAND_BUCKET}) AS nightly, countIf(bucket = ${ON_DEMAND_BUCKET}) AS on_demand
        FROM recommendations WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId}`,
    listedRow,
  );
  return { nightly: row?.nightly ?? 0, onDemand: row?.on_demand ?? 0 };
}

/**
 * The on-demand job: computes the profile's list unless the snapshot has it, then puts it
 * in the serving copy (an empty list too, so the API stops asking), which is what the API
 * waits for.
 */
export async function processColdStart(
  deps: { config: Config; clickhouse: ClickHouse; serving: ServingWriter },
  job: Job,
): Promise<OnDemandResult> {
  const parsed = coldStartJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid cold-start payload: ${z.prettifyError(parsed.error)}`);
  const { snapshotId, profileId } = parsed.data;
  const { config, clickhouse: ch } = deps;
  const result = await computeOnDemand(ch, snapshotId, profileId, scoringParams(config), materializeQuerySettings(config));
  await publishLists(ch, deps.serving, snapshotId, sql`profile_id = ${profileId}`, config.SERVING_DEPTH, [profileId]);
  return result;
}
