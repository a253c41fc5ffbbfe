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
import { namedCandidatesSql, rankedCandidatesSql } from './candidates.ts';
import { popularPaddingSql } from './popular-padding.ts';
import { firstHopsSql, followerHopsSql } from './friends-of-friends.ts';
import { exactCallersSql, pathsPerProfileSql } from './path-budget.ts';
import { momentAtSql } from './path-recency.ts';
import { materializeQuerySettings, scoringParams, type ScoringParams } from './scoring.ts';
import { eligibleHoldingsSql, followeesSql, followersSql, holdingsSql, interactionsSql, socialFollowsSql } from './signal-inputs.ts';
import { newestActivityTime } from './working-set.ts';

/** The bucket number of rows computed on demand (see the recommendations table). */
export const ON_DEMAND_BUCKET = 65_535;

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
  const facts = liveFacts(snapshotId, profileId, pid, profile, params, await newestActivityTime(ch));
  // An attempt that died after ranking the list leaves its rows: its retry only fills them up.
  if (listed.onDemand === 0) {
    await ch.command(
      sql`
        INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
        SELECT ${snapshotId}, ${ON_DEMAND_BUCKET}, ${profileId}, ${RANKED_COLUMNS}
        FROM (${namedCandidatesSql(snapshotId, rankedCandidatesSql(snapshotId, facts, params), 'every profile')})`,
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
  await ch.command(popularPaddingSql(snapshotId, target, params), settings);
  const after = await listedRows(ch, snapshotId, profileId);
  return { rows: after.onDemand, computed: listed.onDemand === 0 };
}

/** The profile's own facts, live, as the CallerFacts of one caller with dense id `pid`. */
function liveFacts(
  snapshotId: number,
  profileId: string,
  pid: number,
  profile: z.infer<typeof liveProfileRow>,
  params: ScoringParams,
  asOf: number,
): CallerFacts {
  const p = sql`toUInt32(${pid})`;
  const callers =
    profile.addresses.length > 0
      ? { addresses: sql`SELECT arrayJoin(${profile.addresses}) AS address, ${p} AS p`, onlyAddresses: profile.addresses }
      : undefined;
  const follows = {
    followees: followeesSql(snapshotId, sql`SELECT ${profileId} AS profile_id, ${p} AS p`, sql`follower_profile_id = ${profileId}`),
    followers: followersSql(snapshotId, profileId, pid),
  };
  const hopCallers = { ...follows, exact: exactCallersSql(snapshotId, follows, pathsPerProfileSql(snapshotId, params)) };
  return {
    ...follows,
    newFollowers: followersSql(snapshotId, profileId, pid, true),
    // Its newest live follow of a snapshot profile, placed among the snapshot's follows (a later one: 2000).
    newestFollows: sql`
      SELECT p, any(${momentAtSql(snapshotId, sql`(SELECT max(followed_at) FROM (${follows.followees}))`)}) AS newest_moment, toUInt8(1) AS follows_anyone
      FROM (${follows.followees}) GROUP BY p`,
    firstHops: firstHopsSql(snapshotId, hopCallers, params),
    followerHops: followerHopsSql(snapshotId, hopCallers, params),
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
