/**
 * A recommendation snapshot computed from the data, for tests that need one before the
 * nightly materialization job exists here: friends of friends from the live follow graph
 * (top 20 per profile, by how many friends lead there), plus the profile tags the nightly
 * run writes (pipeline/materialize/profile-tags.ts), then marked ready.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { writeProfileTags } from '../../pipeline/materialize/profile-tags.ts';
import { beginSnapshot, setSnapshotStatus } from '../../pipeline/materialize/snapshots.ts';

export async function writeStandInSnapshot(ch: ClickHouse): Promise<{ snapshotId: number; recommendations: number }> {
  const snapshotId = await beginSnapshot(ch);
  await ch.command(sql`
    INSERT INTO recommendations (snapshot_id, profile_id, rank, candidate_id, score, reason_kind, reason_chain_id, reason_subject)
    SELECT ${snapshotId}, profile_id, toUInt32(rank), candidate_id, toFloat64(score), 'friend_of_friend', 0, via
    FROM
    (
        SELECT profile_id, groupArray(candidate_id) AS candidates, groupArray(score) AS scores, groupArray(via) AS vias
        FROM
        (
            SELECT profile_id, candidate_id, count() AS score, min(friend) AS via
            FROM
            (
                SELECT follower_profile_id AS profile_id, followee_profile_id AS friend
                FROM follows FINAL WHERE active = 1
            )
            ALL INNER JOIN
            (
                SELECT follower_profile_id AS friend, followee_profile_id AS candidate_id
                FROM follows FINAL WHERE active = 1
            ) USING friend
            WHERE candidate_id != profile_id
            GROUP BY profile_id, candidate_id
            ORDER BY profile_id, score DESC, candidate_id
            LIMIT 20 BY profile_id
        )
        GROUP BY profile_id
    )
    ARRAY JOIN candidates AS candidate_id, scores AS score, vias AS via, arrayEnumerate(candidates) AS rank`);
  await writeProfileTags(ch, snapshotId);
  await setSnapshotStatus(ch, snapshotId, 'ready');
  const [row] = await ch.query(
    sql`SELECT count() AS n FROM recommendations WHERE snapshot_id = ${snapshotId}`,
    z.object({ n: z.coerce.number() }),
  );
  return { snapshotId, recommendations: row?.n ?? 0 };
}
