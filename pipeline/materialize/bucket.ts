/**
 * One bucket of a nightly run: the recommendations of every profile whose dense id is
 * `bucket` modulo `buckets`: its profiles' follows copied into mat_bucket_follows, their
 * lists ranked by dense ids into mat_ranked, then named into recommendations. Each bucket
 * writes its own partition (snapshot_id, bucket) of all three, which a retried attempt
 * drops first: a bucket is written whole exactly once, however often its job runs.
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import type { CallerFacts } from './caller-facts.ts';
import { namedCandidatesSql, rankedCandidatesSql } from './candidates.ts';
import type { ScoringParams } from './scoring.ts';
import { popularPaddingSql } from './popular-padding.ts';
import { RANKED_COLUMNS, RANKED_ID_COLUMNS, RECOMMENDATION_COLUMNS } from './recommendation-columns.ts';
import { awaitReplication } from '../../shared/clickhouse/replication-wait.ts';
import { dropSnapshotPartitions } from './snapshot-partitions.ts';
import { unnamedPathsChosen } from './unnamed-paths-fit.ts';

/** A bucket's own rows until its lists are written: dropped then, or by its retry first. */
const SCRATCH_TABLES = ['mat_bucket_follows', 'mat_ranked'];
/** Every table a bucket writes its own partition (snapshot_id, bucket) of. */
export const BUCKET_TABLES = ['recommendations', ...SCRATCH_TABLES] as const;

export interface BucketResult {
  bucket: number;
  rows: number;
  profiles: number;
  /** The node that computed it (pipeline/materialize/bucket-nodes.ts), when buckets are spread. */
  node?: string;
  /** Set by the bucket job: seconds computing the rows, and publishing the lists (serving copy). */
  computeSeconds?: number;
  publishSeconds?: number;
}

export async function computeBucket(
  ch: ClickHouse,
  snapshotId: number,
  bucket: number,
  buckets: number,
  params: ScoringParams,
  settings: QuerySettings,
): Promise<BucketResult> {
  await dropSnapshotPartitions(ch, BUCKET_TABLES, snapshotId, bucket);
  const slice = bucketSlice(snapshotId, bucket, buckets);
  const callers = sql`SELECT pid AS p, profile_id FROM mat_profiles WHERE ${slice('pid')}`;
  // The ranking reads the callers' followees and followers a dozen times (migration 049).
  await ch.command(
    sql`
      INSERT INTO mat_bucket_follows (snapshot_id, bucket, src, dst, moment)
      SELECT ${snapshotId}, ${bucket}, src, dst, moment FROM mat_follow_edges
      WHERE (${slice('src')}) OR (${slice('dst')})`,
    settings,
  );
  const facts = bucketFacts(slice, bucket);
  // Ranked first, named apart (migration 048): the ranking's aggregation runs without the
  // lookups from dense ids to names beside it, and the naming looks up only the ranked ids.
  await ch.command(
    sql`
      INSERT INTO mat_ranked (snapshot_id, bucket, ${RANKED_ID_COLUMNS})
      SELECT ${snapshotId}, ${bucket}, ${RANKED_ID_COLUMNS}
      FROM (${rankedCandidatesSql(snapshotId, facts, params, await unnamedPathsChosen(ch, snapshotId))})`,
    settings,
  );
  const ranked = sql`SELECT ${RANKED_ID_COLUMNS} FROM mat_ranked WHERE snapshot_id = ${snapshotId} AND bucket = ${bucket}`;
  await ch.command(
    sql`
      INSERT INTO recommendations ${RECOMMENDATION_COLUMNS}
      SELECT ${snapshotId}, ${bucket}, profile_id, ${RANKED_COLUMNS}
      FROM (${namedCandidatesSql(snapshotId, ranked, 'ranked only')}) AS named
      ALL INNER JOIN (${callers}) AS callers USING p`,
    settings,
  );
  // On a cluster the insert reached one replica per shard: until the others have fetched it,
  // a read through the Distributed table may be answered by one that has not, and the
  // padding would take the bucket's callers' lists for short (measured by cluster:check: a
  // tenth more rows than the single server), as the publish would miss their lists.
  await awaitReplication(ch, ['recommendations']);
  // The filler reads the ranked pairs by dense ids, before they are dropped.
  const listed = sql`SELECT p, c FROM mat_ranked WHERE snapshot_id = ${snapshotId} AND bucket = ${bucket}`;
  await ch.command(popularPaddingSql(snapshotId, { bucket, callers, followees: facts.followees, listed }, params), settings);
  await dropSnapshotPartitions(ch, SCRATCH_TABLES, snapshotId, bucket);
  await awaitReplication(ch, ['recommendations']);
  const [row] = await ch.query(
    sql`SELECT count() AS rows, uniqExact(profile_id) AS profiles FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND bucket = ${bucket}`,
    z.object({ rows: z.coerce.number(), profiles: z.coerce.number() }),
  );
  return { bucket, rows: row?.rows ?? 0, profiles: row?.profiles ?? 0 };
}

/** The bucket's callers' facts: their slice of the working set, their follows from the bucket's own copy. */
function bucketFacts(slice: (column: string) => SqlFragment, bucket: number): CallerFacts {
  return {
    followees: sql`SELECT src AS p, dst AS f FROM mat_bucket_follows WHERE bucket = ${bucket} AND ${slice('src')}`,
    followers: sql`SELECT dst AS p, src AS c FROM mat_bucket_follows WHERE bucket = ${bucket} AND ${slice('dst')}`,
    lateFollows: {
      followees: sql`SELECT src AS p, dst AS f FROM mat_follow_edges WHERE ${slice('src')}`,
      followers: sql`SELECT dst AS p, src AS c FROM mat_follow_edges WHERE ${slice('dst')}`,
    },
    newFollowers: sql`SELECT dst AS p, src AS c FROM mat_new_followers WHERE ${slice('dst')}`,
    newestFollows: sql`SELECT src AS p, max(moment) AS newest_moment, toUInt8(1) AS follows_anyone
                       FROM mat_bucket_follows WHERE bucket = ${bucket} AND ${slice('src')} GROUP BY src`,
    followerHops: sql`SELECT p, f, degree, exact, passes_on FROM mat_follower_hops WHERE ${slice('p')}`,
    firstHops: sql`SELECT p, f, degree, exact, passes_on FROM mat_first_hops WHERE ${slice('p')}`,
    socialFollows: sql`SELECT src AS p, followee FROM mat_social_follows WHERE ${slice('src')}`,
    interactions: sql`SELECT src AS p, counterparty, chain_id, interactions, weight FROM mat_interactions WHERE ${slice('src')}`,
    holdings: sql`SELECT pid AS p, collection FROM mat_collection_holders WHERE ${slice('pid')}`,
  };
}

/** The rows of the bucket's profiles, by the column that holds their dense id. */
function bucketSlice(snapshotId: number, bucket: number, buckets: number): (column: string) => SqlFragment {
  return (column) => sql`snapshot_id = ${snapshotId} AND ${identifier(column)} % ${buckets} = ${bucket}`;
}
