/**
 * What the ranking SQL (candidates.ts) needs to know about the profiles it ranks for ("the
 * callers"), as relations: the nightly bucket passes its slice of the working set
 * (bucket.ts), an on-demand computation one profile's live facts (cold-start.ts).
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';

export interface CallerFacts {
  /** (p, f): whom the callers follow in the app (dense ids). */
  followees: SqlFragment;
  /** (p, c): who follows the callers in the app (dense ids). */
  followers: SqlFragment;
  /** (p, c): those of them who began following after the caller's newest follow of its own (migration 050). */
  newFollowers: SqlFragment;
  /** (p, newest_moment, follows_anyone = 1): when each caller that follows anyone last did (path-recency.ts). */
  newestFollows: SqlFragment;
  /** (p, f, degree, exact, passes_on): the followees their friends of friends come through, whether p gets every path, and how many f passes on (friends-of-friends.ts firstHopsSql). */
  firstHops: SqlFragment;
  /** (p, f, degree, exact, passes_on): the followers whose followees they may know too (friends-of-friends.ts followerHopsSql). */
  followerHops: SqlFragment;
  /**
   * The same follows as followees and followers, for the reads of the unnamed paths
   * (unnamed-paths.ts), which ClickHouse 18.16 may start only once the ranking is done: from
   * tables no bucket drops partitions of while others run. A read that starts late waits for
   * a DROP PARTITION queued since, which waits for the statement: seen stalling a run for good.
   */
  lateFollows: Pick<CallerFacts, 'followees' | 'followers'>;
  /** (p, followee): handles the callers follow on the social network. */
  socialFollows: SqlFragment;
  /** (p, counterparty, chain_id, interactions, weight): their counted interactions with other addresses. */
  interactions: SqlFragment;
  /** (p, collection): eligible collections they hold (mat_collections ids). */
  holdings: SqlFragment;
}

/** Two dense ids as one UInt64 (p << 32 | other): a set of tuples is several times slower to probe on ClickHouse 18.16. */
export function pairKey(a: string, b: string): SqlFragment {
  return sql`bitShiftLeft(toUInt64(${identifier(a)}), 32) + ${identifier(b)}`;
}

/** (p, c): the callers' followers whom they do not follow. */
export function notFollowedBackSql(callers: Pick<CallerFacts, 'followees' | 'followers'>): SqlFragment {
  return sql`SELECT p, c FROM (${callers.followers}) WHERE ${pairKey('p', 'c')} NOT IN (SELECT ${pairKey('p', 'f')} FROM (${callers.followees}))`;
}

/**
 * Whom callers follow and who follows them; `everyProfile` when the callers are the whole
 * graph (the working set), whose lookups need not be narrowed to the profiles they touch.
 */
export type Follows = Pick<CallerFacts, 'followees' | 'followers'> & { everyProfile?: true };

/**
 * (f, degree): how many each of `profiles` follows, for those who follow anyone. For the
 * whole graph, every profile's: it touches nearly all of them, and the set of those it
 * touches costs more to build than it saves (in a 100 k world 2.35 s against 0.10 s, for the
 * followers not followed back).
 */
export function degreesSql(snapshotId: number, follows: Follows, profiles: SqlFragment): SqlFragment {
  const only = follows.everyProfile ? sql`` : sql`AND src IN (${profiles})`;
  return sql`
    SELECT src AS f, any(src_degree) AS degree FROM mat_follow_edges
    WHERE snapshot_id = ${snapshotId} ${only}
    GROUP BY src`;
}

/** The whole app follow graph of a run as every caller's followees and followers. */
export function everyFollowSql(snapshotId: number): Follows {
  return {
    followees: sql`SELECT src AS p, dst AS f FROM mat_follow_edges WHERE snapshot_id = ${snapshotId}`,
    followers: sql`SELECT dst AS p, src AS c FROM mat_follow_edges WHERE snapshot_id = ${snapshotId}`,
    everyProfile: true,
  };
}
