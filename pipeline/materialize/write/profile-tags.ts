/**
 * Writes a snapshot's user tags, all inside ClickHouse: profile -> its addresses -> the
 * SBTs bound to them -> their issuers' categories. One JOIN per SELECT (ClickHouse 18.16),
 * so the joins nest. ALL joins: an address holds many SBTs and a profile many addresses.
 */
import type { ClickHouse, QuerySettings } from '../../../shared/clickhouse/client.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';

export async function writeProfileTags(ch: ClickHouse, snapshotId: number, settings?: QuerySettings): Promise<void> {
  await ch.command(
    sql`
    INSERT INTO profile_tags (snapshot_id, profile_id, tags)
    SELECT
        ${snapshotId} AS snapshot_id,
        profile_id,
        arraySort(groupUniqArray(category)) AS tags
    FROM
    (
        SELECT profile_id, arrayJoin(categories) AS category
        FROM
        (
            -- Which issuer contracts each profile holds an SBT of.
            SELECT DISTINCT profile_id, chain_id, contract
            FROM
            (
                SELECT profile_id, arrayJoin(addresses) AS owner
                FROM profiles FINAL
            ) AS owners
            ALL INNER JOIN
            (
                SELECT owner, chain_id, contract
                FROM sbt_mints_by_owner FINAL
            ) AS mints USING owner
        ) AS held
        ALL INNER JOIN
        (
            SELECT chain_id, contract, categories
            FROM sbt_issuers FINAL
        ) AS issuers USING (chain_id, contract)
    )
    GROUP BY profile_id`,
    settings,
  );
}
