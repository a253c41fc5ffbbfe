/**
 * What the four signals know about the profile a list is computed for ("the caller"),
 * as SQL over the raw tables. The nightly run materializes these relations for every
 * profile (working-set.ts); an on-demand computation for one new profile uses the same
 * SQL inline, restricted to that profile (cold-start.ts). Either way the output columns
 * are the same, with `p` the caller's dense id.
 *
 * Dense ids come from the snapshot's mat_profiles / mat_addresses.
 */
import { inList, sql, SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import type { ScoringParams } from './scoring.ts';
import type { OwnTransfers, TransferTable } from './own-transfers.ts';

/** Where a mint comes from and a burn goes (as in the view nft_holdings). */
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Zero and burn addresses: never a person, whatever the labels say. */
export const WELL_KNOWN_NON_PERSONS = [ZERO_ADDRESS, '0x000000000000000000000000000000000000dead'];

/** Who "the caller" is: a relation (address, p) of caller addresses, or all profiles' addresses. */
export interface Callers {
  /** SELECT address, p: the addresses of the callers. */
  addresses: SqlFragment;
  /** When set, raw rows are first narrowed to these transfers (one caller: no full join). */
  own?: OwnTransfers;
}

/**
 * Every transaction and token transfer seen from both ends: (chain_id, own, other, time),
 * with dust and self-transfers removed. Token transfers of zero value are address-poisoning
 * spam, not interactions. A token transfer without a block time counts as one half-life old.
 */
export function interactionEndsSql(params: ScoringParams, asOf: number, own?: OwnTransfers): SqlFragment {
  const halfLife = Math.round(params.halfLifeDays * 86_400);
  return sql`
    SELECT chain_id, time, arrayJoin([(a, b), (b, a)]) AS ends, ends.1 AS own, ends.2 AS other
    FROM
    (
        SELECT chain_id, from_address AS a, to_address AS b, toUInt32(block_time) AS time
        FROM transactions FINAL ${ownRowsSql('transactions', own)}
        WHERE to_address != '' AND from_address != to_address
          AND toFloat64OrZero(value) >= toFloat64(${params.dustWei}) ${touchingSql(own)}
        UNION ALL
        SELECT chain_id, from_address AS a, to_address AS b,
               if(isNull(block_time), toUInt32(${asOf - halfLife}), toUInt32(assumeNotNull(block_time))) AS time
        FROM token_transfers FINAL ${ownRowsSql('token_transfers', own)}
        WHERE value != '0' AND from_address != to_address ${touchingSql(own)}
    )`;
}

/**
 * (p, counterparty, chain_id, interactions, weight): the callers' interactions with other
 * addresses that are not excluded (mat_excluded_addresses), each weighing 2^(-age / half-life)
 * with age measured back from `asOf`.
 */
export function interactionsSql(snapshotId: number, params: ScoringParams, asOf: number, callers: Callers): SqlFragment {
  const halfLife = params.halfLifeDays * 86_400;
  const excluded = sql`(SELECT address FROM mat_excluded_addresses WHERE snapshot_id = ${snapshotId})`;
  return sql`
    SELECT p, counterparty, chain_id,
           toUInt32(count()) AS interactions,
           sum(exp2(-(greatest(${asOf}, time) - time) / ${halfLife})) AS weight
    FROM
    (
        SELECT chain_id, own AS address, other AS counterparty, time
        FROM (${interactionEndsSql(params, asOf, callers.own)})
        WHERE other NOT IN ${excluded} AND own NOT IN ${excluded}
    ) AS ends
    ALL INNER JOIN (${callers.addresses}) AS callers USING address
    GROUP BY p, counterparty, chain_id`;
}

/**
 * `PREWHERE` the versions of the caller's own rows of a table (OwnTransfers): nothing without
 * them. FINAL then merges only theirs, and reduces them to the newest as it would over the
 * whole table: a condition on the table's ORDER BY holds for every version of a row alike, so
 * filtering before the merge keeps what filtering after it would. As a WHERE, ClickHouse
 * 18.16 merged every row of the granules the keys fall in before filtering: 1.2 s of one
 * caller's transactions in a world of a million profiles, against 0.2 s; FINAL over the whole
 * table, before the keys were looked up, 0.76 s already at 100 k.
 */
function ownRowsSql(table: TransferTable, own?: OwnTransfers): SqlFragment {
  if (!own) return sql``;
  return sql`PREWHERE ${own.touching[table]}`;
}

/** `AND` the rows that touch the caller's addresses (from or to): nothing without them. */
function touchingSql(own?: OwnTransfers): SqlFragment {
  if (!own) return sql``;
  const near = inList(own.addresses);
  return sql`AND (from_address IN ${near} OR to_address IN ${near})`;
}

/**
 * (p, chain_id, contract): NFT collections the callers hold a token of now. For every
 * profile, the view nft_holdings; for a few addresses, the same sum over only the transfers
 * that touch them (a holder's balance is the sum of its own transfers), which does not
 * aggregate every transfer ever made (test/integration/holdings-of-addresses.test.ts holds the two equal).
 */
export function holdingsSql(callers: Callers): SqlFragment {
  const holdings = callers.own ? holdingsOfSql(callers.own) : sql`SELECT chain_id, contract, holder FROM nft_holdings`;
  return sql`
    SELECT DISTINCT p, chain_id, contract
    FROM (SELECT chain_id, contract, holder AS address FROM (${holdings})) AS holdings
    ALL INNER JOIN (${callers.addresses}) AS callers USING address`;
}

/** (chain_id, contract, token_id, holder, balance): nft_holdings (migration 004) of the caller's addresses alone. */
export function holdingsOfSql(own: OwnTransfers): SqlFragment {
  return sql`
    SELECT chain_id, contract, token_id, holder, sum(delta) AS balance
    FROM
    (
        SELECT chain_id, contract, token_id,
               arrayJoin([(to_address, toInt64(amount)), (from_address, -toInt64(amount))]) AS movement,
               movement.1 AS holder, movement.2 AS delta
        FROM nft_transfers FINAL ${ownRowsSql('nft_transfers', own)}
        WHERE 1 ${touchingSql(own)}
    )
    WHERE holder IN ${inList(own.addresses)} AND holder != ${ZERO_ADDRESS}
    GROUP BY chain_id, contract, token_id, holder
    HAVING balance > 0`;
}

/** (p, collection): holdings (p, chain_id, contract) of collections eligible in the snapshot. */
export function eligibleHoldingsSql(snapshotId: number, holdings: SqlFragment): SqlFragment {
  return sql`
    SELECT p, collection
    FROM (${holdings}) AS holdings
    ALL INNER JOIN (SELECT chain_id, contract, collection FROM mat_collections WHERE snapshot_id = ${snapshotId}) AS collections USING (chain_id, contract)`;
}

/**
 * (p, followee): handles the callers follow on the social network now. `handles` is a
 * relation (social_username, p).
 */
export function socialFollowsSql(handles: SqlFragment, onlyHandle?: string): SqlFragment {
  const near = onlyHandle === undefined ? sql`` : sql`AND follower = ${onlyHandle}`;
  return sql`
    SELECT p, followee
    FROM
    (
        SELECT follower AS social_username, followee
        FROM social_follows FINAL
        WHERE active = 1 ${near}
    ) AS follows
    ALL INNER JOIN (${handles}) AS callers USING social_username`;
}

/**
 * (p, f, followed_at): profiles the callers follow in the app now, as dense ids of the
 * snapshot. `followers` is a relation (profile_id, p); `onlyFollowers`, when given, a condition
 * on follower_profile_id that lets the read skip everyone else's follows.
 */
export function followeesSql(snapshotId: number, followers: SqlFragment, onlyFollowers?: SqlFragment): SqlFragment {
  const near = onlyFollowers === undefined ? sql`` : sql`AND ${onlyFollowers}`;
  // A few followers' followees are looked up by id rather than with every profile's in memory
  // (1 M of them: 0.3 s). GLOBAL: on a cluster follows is Distributed (own-transfers.ts says why).
  const followed =
    onlyFollowers === undefined ? sql`` : sql`AND profile_id GLOBAL IN (SELECT followee_profile_id FROM follows WHERE ${onlyFollowers})`;
  // Join keys get names of their own: on ClickHouse 18.16 an alias that reuses a column
  // name of the joined subquery (followee_profile_id AS profile_id) silently reads that column.
  return sql`
    SELECT p, f, followed_at
    FROM
    (
        SELECT p, followee_profile_id, followed_at
        FROM
        (
            SELECT follower_profile_id, followee_profile_id, followed_at
            FROM follows FINAL
            WHERE active = 1 ${near}
        ) AS follows
        ALL INNER JOIN (SELECT profile_id AS follower_profile_id, p FROM (${followers})) AS callers USING follower_profile_id
    ) AS followed
    ALL INNER JOIN
    (
        SELECT profile_id AS followee_profile_id, pid AS f FROM mat_profiles WHERE snapshot_id = ${snapshotId} ${followed}
    ) AS followees USING followee_profile_id
    WHERE f != p`;
}

/** (p, f, followed_at): every follow between the snapshot's profiles now, the follows a run holds. */
export function runFollowsSql(snapshotId: number): SqlFragment {
  return followeesSql(snapshotId, sql`SELECT profile_id, pid AS p FROM mat_profiles WHERE snapshot_id = ${snapshotId}`);
}

