/**
 * The first step of a run: the working set every bucket joins on, written under the run's
 * snapshot id. Profiles get dense UInt32 ids (joins and GROUP BYs on integers, not
 * strings), the hygiene rules decide which addresses count for nobody, and each signal's
 * input is reduced to one small table. All computed inside ClickHouse (INSERT ... SELECT).
 *
 * Re-running it for the same snapshot first drops what an earlier attempt wrote.
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { identifier, inList, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { collectionCandidatesSql, fofBackSql, fofEdgesSql, fofForwardSql, followerCountsTableSql } from './bounded-lists.ts';
import { pathWeightOf } from './path-weight.ts';
import { heldOutFollowsSql } from './held-out-ranking.ts';
import { heldOutPlacesTableSql } from './held-out-places.ts';
import { pathWeightFitSql } from './path-weight-fit.ts';
import { followTimesSql, recencyFitSql, spanStartSql } from './path-recency.ts';
import { unnamedPathsFitSql } from './unnamed-paths-fit.ts';
import { exactProfilesSql, pathBudgetSql, pathCountsTableSql } from './path-budget.ts';
import { firstHopsSql, followerHopsSql } from './friends-of-friends.ts';
import { popularListSql } from './popular-padding.ts';
import { runInDependencyOrder } from './dependency-order.ts';
import { scoringFitSql } from './scoring-fit.ts';
import { awaitReplication } from '../../shared/clickhouse/replication-wait.ts';
import { dropSnapshotPartitions } from './snapshot-partitions.ts';
import { everyFollowSql } from './caller-facts.ts';
import type { ScoringParams } from './scoring.ts';
import {
  WELL_KNOWN_NON_PERSONS,
  eligibleHoldingsSql,
  holdingsSql,
  interactionEndsSql,
  interactionsSql,
  runFollowsSql,
  socialFollowsSql,
  type Callers,
} from './signal-inputs.ts';

/**
 * The working set's tables, each with the working-set tables its statement reads: a table
 * is written once those are. Two chains run side by side: the follow graph's
 * (mat_follow_edges .. mat_fof_back) and the chain and NFT inputs'.
 */
export const WORKING_SET_READS = {
  mat_profiles: [],
  mat_addresses: ['mat_profiles'],
  mat_follow_times: ['mat_profiles'],
  mat_follow_edges: ['mat_profiles', 'mat_follow_times'],
  mat_new_followers: ['mat_profiles'],
  mat_follower_counts: ['mat_follow_edges'],
  mat_path_counts: ['mat_follow_edges'],
  mat_path_budget: ['mat_path_counts'],
  mat_fof_edges: ['mat_follow_edges', 'mat_follower_counts', 'mat_path_budget'],
  mat_first_hops: ['mat_follow_edges', 'mat_path_counts', 'mat_path_budget'],
  mat_follower_hops: ['mat_follow_edges', 'mat_path_counts', 'mat_path_budget'],
  mat_fof_forward: ['mat_fof_edges', 'mat_path_budget'],
  mat_fof_back: ['mat_fof_edges'],
  mat_popular: ['mat_follower_counts', 'mat_fof_edges'],
  mat_scoring_fit: ['mat_follow_edges'],
  mat_held_out_follows: ['mat_profiles', 'mat_follow_edges', 'mat_path_counts'],
  mat_held_out_places: ['mat_follow_edges', 'mat_scoring_fit', 'mat_held_out_follows'],
  mat_path_weight_fit: ['mat_held_out_places'],
  mat_recency_fit: ['mat_held_out_places', 'mat_path_weight_fit'],
  mat_unnamed_paths_fit: ['mat_follow_edges', 'mat_follower_counts', 'mat_scoring_fit', 'mat_held_out_follows', 'mat_path_weight_fit', 'mat_recency_fit'],
  mat_social_follows: ['mat_profiles'],
  mat_excluded_addresses: [],
  mat_interactions: ['mat_excluded_addresses', 'mat_addresses'],
  mat_holdings: ['mat_addresses'],
  mat_collections: ['mat_holdings'],
  mat_collection_holders: ['mat_holdings', 'mat_collections'],
  mat_collection_candidates: ['mat_collection_holders', 'mat_follower_counts'],
} as const satisfies Record<string, readonly string[]>;

export type WorkingTable = keyof typeof WORKING_SET_READS;
export const WORKING_TABLES = Object.keys(WORKING_SET_READS) as WorkingTable[];

export interface WorkingSetSummary {
  profiles: number;
  /** Newest block time seen: the "now" that interaction ages are measured from. */
  asOf: number;
  rows: Record<string, number>;
}

export async function buildWorkingSet(
  ch: ClickHouse,
  snapshotId: number,
  params: ScoringParams,
  settings: QuerySettings,
  concurrency: number,
  onStep: (table: WorkingTable) => void = () => {},
): Promise<WorkingSetSummary> {
  await dropSnapshotPartitions(ch, WORKING_TABLES, snapshotId);
  const asOf = await newestActivityTime(ch);
  const statements = workingSetStatements(snapshotId, params, asOf);
  await runInDependencyOrder(WORKING_SET_READS, concurrency, async (table) => {
    onStep(table);
    await ch.command(statements[table], settings);
  });
  // Buckets may run on any node (bucket-nodes.ts), each from its own replica of these tables.
  await awaitReplication(ch, WORKING_TABLES);
  const rows = await rowsPerTable(ch, snapshotId);
  return { profiles: rows.mat_profiles ?? 0, asOf, rows };
}

/** The INSERT ... SELECT that writes each working-set table. */
export function workingSetStatements(snapshotId: number, params: ScoringParams, asOf: number): Record<WorkingTable, SqlFragment> {
  return {
    mat_profiles: profilesSql(snapshotId),
    mat_addresses: addressesSql(snapshotId),
    mat_follow_times: followTimesSql(snapshotId),
    mat_follow_edges: followEdgesSql(snapshotId),
    mat_new_followers: newFollowersTableSql(snapshotId),
    mat_social_follows: sql`
      INSERT INTO mat_social_follows (snapshot_id, src, followee)
      SELECT ${snapshotId}, p, followee FROM (${socialFollowsSql(everyHandle(snapshotId))})`,
    mat_excluded_addresses: excludedAddressesSql(snapshotId, params, asOf),
    mat_interactions: sql`
      INSERT INTO mat_interactions (snapshot_id, src, counterparty, chain_id, interactions, weight)
      SELECT ${snapshotId}, p, counterparty, chain_id, interactions, weight
      FROM (${interactionsSql(snapshotId, params, asOf, everyProfile(snapshotId))})`,
    mat_holdings: sql`
      INSERT INTO mat_holdings (snapshot_id, pid, chain_id, contract)
      SELECT ${snapshotId}, p, chain_id, contract FROM (${holdingsSql(everyProfile(snapshotId))})`,
    mat_collections: collectionsSql(snapshotId, params),
    mat_collection_holders: sql`
      INSERT INTO mat_collection_holders (snapshot_id, collection, pid)
      SELECT ${snapshotId}, collection, p FROM (${eligibleHoldingsSql(snapshotId, sql`SELECT pid AS p, chain_id, contract FROM mat_holdings WHERE snapshot_id = ${snapshotId}`)})`,
    mat_follower_counts: followerCountsTableSql(snapshotId),
    mat_path_counts: pathCountsTableSql(snapshotId),
    mat_path_budget: pathBudgetSql(snapshotId, params),
    mat_fof_edges: fofEdgesSql(snapshotId, params),
    mat_first_hops: sql`
      INSERT INTO mat_first_hops (snapshot_id, p, f, degree, exact, passes_on)
      SELECT ${snapshotId}, p, f, degree, exact, passes_on FROM (${firstHopsSql(snapshotId, { ...everyFollowSql(snapshotId), exact: exactProfilesSql(snapshotId, params) }, params)})`,
    mat_follower_hops: sql`
      INSERT INTO mat_follower_hops (snapshot_id, p, f, degree, exact, passes_on)
      SELECT ${snapshotId}, p, f, degree, exact, passes_on FROM (${followerHopsSql(snapshotId, { ...everyFollowSql(snapshotId), exact: exactProfilesSql(snapshotId, params) }, params)})`,
    mat_fof_forward: fofForwardSql(snapshotId, params),
    mat_fof_back: fofBackSql(snapshotId, params),
    mat_popular: popularListSql(snapshotId, params),
    mat_scoring_fit: scoringFitSql(snapshotId, params),
    mat_held_out_follows: heldOutFollowsSql(snapshotId, params),
    mat_held_out_places: heldOutPlacesTableSql(snapshotId, params),
    mat_path_weight_fit: pathWeightFitSql(snapshotId, params),
    mat_recency_fit: recencyFitSql(snapshotId, params),
    mat_unnamed_paths_fit: unnamedPathsFitSql(snapshotId, params),
    mat_collection_candidates: collectionCandidatesSql(snapshotId, params),
  };
}

/** Dense ids 1..n in profile_id order, so that ordering by pid is ordering by profile_id. */
function profilesSql(snapshotId: number): SqlFragment {
  return sql`
    INSERT INTO mat_profiles (snapshot_id, pid, profile_id, social_username)
    SELECT ${snapshotId}, toUInt32(rowNumberInAllBlocks() + 1), profile_id, social_username
    FROM (SELECT profile_id, social_username FROM profiles FINAL ORDER BY profile_id)`;
}

function addressesSql(snapshotId: number): SqlFragment {
  return sql`
    INSERT INTO mat_addresses (snapshot_id, address, pid)
    SELECT ${snapshotId}, address, pid
    FROM (SELECT profile_id, arrayJoin(addresses) AS address FROM profiles FINAL) AS addresses
    ALL INNER JOIN (SELECT profile_id, pid FROM mat_profiles WHERE snapshot_id = ${snapshotId}) AS profiles USING profile_id`;
}

/**
 * Active app follows between known profiles, each with its moment (path-recency.ts; a follow
 * made after mat_follow_times was written, which no span of the run holds, is newer than all
 * of them: 2000). Each follower's weight as the middle of a friend-of-friend path falls with
 * how many it follows: someone who follows everybody says little about any one of them.
 */
function followEdgesSql(snapshotId: number): SqlFragment {
  const follows = runFollowsSql(snapshotId);
  return sql`
    INSERT INTO mat_follow_edges (snapshot_id, src, dst, src_degree, src_weight, moment)
    SELECT ${snapshotId}, p, dst, length(followees) AS src_degree, ${pathWeightOf('adamic-adar', sql`src_degree`)} AS src_weight, moment
    FROM
    (
        SELECT p, groupArray(f) AS followees, groupArray(if(placed = 1, follow_moment, 2000)) AS moments
        FROM (SELECT p, f, ${spanStartSql(snapshotId, sql`followed_at`)} AS since FROM (${follows})) AS follows
        ALL LEFT JOIN
        (
            SELECT since, moment AS follow_moment, toUInt8(1) AS placed FROM mat_follow_times WHERE snapshot_id = ${snapshotId}
        ) AS times USING since
        GROUP BY p
    )
    ARRAY JOIN followees AS dst, moments AS moment`;
}

/**
 * Follows made after the followed profile's newest follow of its own (migration 050): the
 * follows it has not had the chance to return yet.
 */
function newFollowersTableSql(snapshotId: number): SqlFragment {
  const follows = runFollowsSql(snapshotId);
  // Join keys get names of their own (followeesSql's note on ClickHouse 18.16 aliases).
  return sql`
    INSERT INTO mat_new_followers (snapshot_id, src, dst)
    SELECT ${snapshotId}, p, followee
    FROM (SELECT p, f AS followee, followed_at FROM (${follows})) AS follows
    ALL INNER JOIN (SELECT p AS followee, max(followed_at) AS newest_own FROM (${follows}) GROUP BY p) AS own USING followee
    WHERE followed_at > newest_own`;
}

/**
 * Addresses whose interactions count for nobody: labelled non-persons, zero and burn
 * addresses, the configured deny list, and hubs (more distinct counterparties than a person
 * has: exchanges, bridges, airdrop and spam senders). An address may be listed for several reasons.
 */
function excludedAddressesSql(snapshotId: number, params: ScoringParams, asOf: number): SqlFragment {
  const denied = params.denyAddresses.length
    ? sql`UNION ALL SELECT arrayJoin(${params.denyAddresses}) AS address, 'deny-list' AS reason`
    : sql``;
  // Hubs are counted over every interaction, dust included: a dust sprayer is a hub.
  const everything = { ...params, dustWei: '0' };
  return sql`
    INSERT INTO mat_excluded_addresses (snapshot_id, address, reason)
    SELECT ${snapshotId}, address, reason
    FROM
    (
        SELECT address, 'label' AS reason FROM address_labels FINAL
        UNION ALL
        SELECT arrayJoin(${WELL_KNOWN_NON_PERSONS}) AS address, 'well-known' AS reason
        ${denied}
        UNION ALL
        SELECT own AS address, 'hub' AS reason
        FROM (${interactionEndsSql(everything, asOf)})
        GROUP BY own
        HAVING uniq(other) > ${params.hubCounterparties}
    )`;
}

/**
 * Collections that can say something about a pair: held by at least two profiles, at most
 * REC_NFT_MAX_HOLDERS, and not on the spam list. Rare ones weigh more.
 */
function collectionsSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const notSpam = params.nftSpamContracts.length ? sql`AND contract NOT IN ${inList(params.nftSpamContracts)}` : sql``;
  return sql`
    INSERT INTO mat_collections (snapshot_id, collection, chain_id, contract, name, holders, weight)
    SELECT ${snapshotId}, toUInt32(rowNumberInAllBlocks() + 1), chain_id, contract, shown_name, holders, weight
    FROM
    (
        SELECT chain_id, contract,
               multiIf(name != '', name, symbol != '', symbol, contract) AS shown_name,
               holders, 1 / log(1 + holders) AS weight
        FROM
        (
            SELECT chain_id, contract, toUInt32(uniqExact(pid)) AS holders
            FROM mat_holdings
            WHERE snapshot_id = ${snapshotId} ${notSpam}
            GROUP BY chain_id, contract
            HAVING holders >= 2 AND holders <= ${params.nftMaxHolders}
        ) AS eligible
        ALL LEFT JOIN (SELECT chain_id, contract, name, symbol FROM nft_collections FINAL) AS named USING (chain_id, contract)
        ORDER BY holders, chain_id, contract
    )`;
}

/** Every profile of the snapshot as a caller. */
export function everyProfile(snapshotId: number): Callers {
  return { addresses: sql`SELECT address, pid AS p FROM mat_addresses WHERE snapshot_id = ${snapshotId}` };
}

export function everyHandle(snapshotId: number): SqlFragment {
  return sql`SELECT social_username, pid AS p FROM mat_profiles WHERE snapshot_id = ${snapshotId} AND social_username != ''`;
}

/** Newest block time of any transaction or token transfer; now when there are none. */
export async function newestActivityTime(ch: ClickHouse): Promise<number> {
  const [row] = await ch.query(
    sql`SELECT greatest(
            (SELECT toUInt32(max(block_time)) FROM transactions),
            (SELECT toUInt32(ifNull(max(block_time), toDateTime(0))) FROM token_transfers)) AS t`,
    z.object({ t: z.coerce.number() }),
  );
  return row && row.t > 0 ? row.t : Math.floor(Date.now() / 1000);
}

async function rowsPerTable(ch: ClickHouse, snapshotId: number): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  for (const table of WORKING_TABLES) {
    const [row] = await ch.query(
      sql`SELECT count() AS n FROM ${identifier(table)} WHERE snapshot_id = ${snapshotId}`,
      z.object({ n: z.coerce.number() }),
    );
    rows[table] = row?.n ?? 0;
  }
  return rows;
}
