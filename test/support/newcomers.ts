/**
 * Newcomers after a nightly run, for the bench and the cluster check of lists computed on
 * demand: each copies a sampled profile of the world under the id `newcomer-<its id>`, with
 * its wallets and whom it follows (on 2030-01-01, after every follow a run holds), and, when
 * asked, is followed back by them a day later (new followers). The sample is the `count`
 * profiles that follow anyone, in the order of a hash of their ids, so that two servers
 * holding the same world make the same newcomers.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';

const NEWCOMER = 'newcomer-';

/** Adds the newcomers; returns their profile ids, sorted. */
export async function addNewcomers(ch: ClickHouse, count: number, options: { followedBack: boolean }): Promise<string[]> {
  // GLOBAL: on a cluster profiles and follows are Distributed tables.
  const sampled = sql`SELECT follower_profile_id FROM follows FINAL WHERE active = 1 GROUP BY follower_profile_id ORDER BY cityHash64(follower_profile_id) LIMIT ${count}`;
  await ch.command(sql`
    INSERT INTO profiles (profile_id, name, avatar, addresses, social_username, game_platform_id, updated_at, ingested_at)
    SELECT concat(${NEWCOMER}, profile_id), name, avatar, addresses, '', '', now(), now() FROM profiles FINAL WHERE profile_id GLOBAL IN (${sampled})`);
  const newcomer = sql`concat(${NEWCOMER}, follower_profile_id)`;
  // Two INSERTs, not one with UNION ALL: through Distributed tables ClickHouse 18.16 refuses
  // the NULLs of a union ("Cannot convert column NULL because it is non constant").
  const follow = (follower: SqlFragment, followee: SqlFragment, at: string) =>
    ch.command(sql`
      INSERT INTO follows (follower_profile_id, followee_profile_id, followed_at, unfollowed_at, active, updated_at, ingested_at)
      SELECT ${follower}, ${followee}, toDateTime(${at}), NULL, 1, now(), now()
      FROM follows FINAL WHERE active = 1 AND follower_profile_id GLOBAL IN (${sampled})`);
  await follow(newcomer, sql`followee_profile_id`, '2030-01-01 00:00:00');
  if (options.followedBack) await follow(sql`followee_profile_id`, newcomer, '2030-01-02 00:00:00');
  const rows = await ch.query(sql`SELECT ${newcomer} AS id FROM (${sampled}) ORDER BY id`, z.object({ id: z.string() }));
  return rows.map((r) => r.id);
}
