/**
 * What a run reads from ClickHouse, one statement per input, each read once as a RowBinary
 * stream (world-loader.ts). ClickHouse does what it does best here (FINAL, the hygiene
 * rules, aggregating transfers into pairs); the ranking happens in memory.
 *
 * Every statement means the same on ClickHouse 18.16 and current versions: one JOIN per
 * SELECT, every JOIN ALL over a right side with distinct keys, every joined subquery aliased
 * (docs/operations.md, ClickHouse versions).
 */
import { inList, sql, type SqlFragment } from '../../../shared/clickhouse/sql-literal.ts';
import type { OwnTransfers, TransferTable } from './own-transfers.ts';

/** What the hygiene rules and the signals' inputs read from config (engine-settings.ts). */
export interface InputRules {
  /** Native transfers below this (wei) are dust. */
  dustWei: string;
  /** Addresses with more distinct counterparties than this are hubs, not people. */
  hubCounterparties: number;
  denyAddresses: readonly string[];
  halfLifeDays: number;
}

/** Where a mint comes from and a burn goes (as in the view nft_holdings). */
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Zero and burn addresses: never a person, whatever the labels say. */
export const WELL_KNOWN_NON_PERSONS = [ZERO_ADDRESS, '0x000000000000000000000000000000000000dead'];

/**
 * profile_id and its hash, the handle's hash (0 for none), the addresses' hashes: every
 * profile, in profile_id order (their dense ids). The other inputs name profiles, handles and
 * addresses by cityHash64 alone (load/hash-index.ts).
 */
export function profilesSql(): SqlFragment {
  return sql`
    SELECT profile_id, cityHash64(profile_id), if(social_username = '', toUInt64(0), cityHash64(social_username)), arrayMap(a -> cityHash64(a), addresses)
    FROM profiles FINAL
    ORDER BY profile_id`;
}

/** follower hash, followee hash, followed_at (unix seconds): every follow in the app now. */
export function followsSql(): SqlFragment {
  return sql`
    SELECT cityHash64(follower_profile_id), cityHash64(followee_profile_id), toUInt32(followed_at)
    FROM follows FINAL
    WHERE active = 1 AND follower_profile_id != followee_profile_id`;
}

/** follower handle's hash, followee handle's hash: every social follow now (the loader keeps those between profiles' handles). */
export function socialFollowsSql(): SqlFragment {
  return sql`SELECT cityHash64(follower), cityHash64(followee) FROM social_follows FINAL WHERE active = 1 AND follower != followee`;
}

/**
 * (address): addresses whose transfers count for nobody: labelled non-persons, zero and burn
 * addresses, the deny list, and hubs (more distinct counterparties than a person has:
 * exchanges, bridges, airdrop and spam senders, counted over every transfer, dust included:
 * a dust sprayer is a hub).
 */
export function excludedAddressesSql(rules: InputRules, asOf: number): SqlFragment {
  const denied = rules.denyAddresses.length > 0 ? sql`UNION ALL SELECT arrayJoin(${[...rules.denyAddresses]}) AS address` : sql``;
  return sql`
    SELECT address FROM address_labels FINAL
    UNION ALL
    SELECT arrayJoin(${WELL_KNOWN_NON_PERSONS}) AS address
    ${denied}
    UNION ALL
    SELECT own AS address
    FROM (${interactionEndsSql({ ...rules, dustWei: '0' }, asOf)})
    GROUP BY own
    HAVING uniq(other) > ${rules.hubCounterparties}`;
}

/** The excluded addresses' hashes, each once (the loader leaves their transfers out; the resident engine a newcomer's). */
export function excludedListSql(rules: InputRules, asOf: number): SqlFragment {
  return sql`SELECT DISTINCT cityHash64(address) FROM (${excludedAddressesSql(rules, asOf)})`;
}

/**
 * Every transaction and token transfer seen from both ends: (chain_id, time, own, other), dust
 * and self-transfers left out. A token transfer of zero value is address poisoning, not an
 * interaction; one without a block time counts as one half-life old. `own`: only the rows of
 * one caller's transfers (own-transfers.ts).
 */
export function interactionEndsSql(rules: InputRules, asOf: number, own?: OwnTransfers): SqlFragment {
  const halfLife = Math.round(rules.halfLifeDays * 86_400);
  return sql`
    SELECT chain_id, time, arrayJoin([(a, b), (b, a)]) AS ends, ends.1 AS own, ends.2 AS other
    FROM
    (
        SELECT chain_id, from_address AS a, to_address AS b, toUInt32(block_time) AS time
        FROM transactions FINAL ${ownRowsSql('transactions', own)}
        WHERE to_address != '' AND from_address != to_address
          AND toFloat64OrZero(value) >= toFloat64(${rules.dustWei}) ${touchingSql(own)}
        UNION ALL
        SELECT chain_id, from_address AS a, to_address AS b,
               if(isNull(block_time), toUInt32(${asOf - halfLife}), toUInt32(assumeNotNull(block_time))) AS time
        FROM token_transfers FINAL ${ownRowsSql('token_transfers', own)}
        WHERE value != '0' AND from_address != to_address ${touchingSql(own)}
    )`;
}

/** Each transfer's weight: halved every half-life before `asOf`, the newest block time. */
export function decayedSql(rules: InputRules, asOf: number): SqlFragment {
  return sql`exp2(-(greatest(${asOf}, time) - time) / ${rules.halfLifeDays * 86_400})`;
}

/** (address, profile_id): every address of every profile. */
function ownersSql(): SqlFragment {
  return sql`SELECT arrayJoin(addresses) AS address, profile_id FROM profiles FINAL`;
}

/**
 * own hash, other hash, chain_id, transfers, last (unix seconds), weight: every pair of
 * profile addresses that transferred, per chain, each pair once (own < other). The loader maps
 * them to profiles and leaves out excluded addresses (world-loader.ts): checked in memory
 * against the few excluded ones, where ClickHouse would compute the hubs once more per side.
 */
export function addressPairsSql(rules: InputRules, asOf: number): SqlFragment {
  const profileAddresses = sql`(SELECT arrayJoin(addresses) FROM profiles FINAL)`;
  return sql`
    SELECT cityHash64(own) AS own_hash, cityHash64(other) AS other_hash, chain_id,
           toUInt32(count()) AS transfers, max(time) AS last, sum(${decayedSql(rules, asOf)}) AS weight
    FROM (${interactionEndsSql(rules, asOf)})
    WHERE own < other AND own IN ${profileAddresses} AND other IN ${profileAddresses}
    GROUP BY own_hash, other_hash, chain_id`;
}

/** profile hash, chain_id, contract: the collections each profile holds a token of now, on any of its addresses. */
export function holdingsSql(): SqlFragment {
  return sql`
    SELECT DISTINCT cityHash64(profile_id), chain_id, contract
    FROM (SELECT chain_id, contract, holder AS address FROM nft_holdings) AS holdings
    ALL INNER JOIN (${ownersSql()}) AS owners USING address`;
}

/** chain_id, contract, name: what a collection is called (its name, else its symbol, else its address). */
export function collectionNamesSql(): SqlFragment {
  return sql`SELECT chain_id, contract, multiIf(name != '', name, symbol != '', symbol, contract) AS shown FROM nft_collections FINAL`;
}

/**
 * `PREWHERE` the versions of the caller's own rows of a table (OwnTransfers): nothing without
 * them. FINAL then merges only theirs, and reduces them to the newest as it would over the
 * whole table: a condition on the table's ORDER BY holds for every version of a row alike.
 * As a WHERE, ClickHouse 18.16 merged every row of the granules the keys fall in first.
 */
export function ownRowsSql(table: TransferTable, own?: OwnTransfers): SqlFragment {
  if (!own) return sql``;
  return sql`PREWHERE ${own.touching[table]}`;
}

/** `AND` the rows that touch the caller's addresses (from or to): nothing without them. */
export function touchingSql(own?: OwnTransfers): SqlFragment {
  if (!own) return sql``;
  const near = inList(own.addresses);
  return sql`AND (from_address IN ${near} OR to_address IN ${near})`;
}

/** The newest block time of any transaction or token transfer: the "now" transfer ages count from (0 when there are none). */
export function newestActivitySql(): SqlFragment {
  return sql`SELECT greatest(
      (SELECT toUInt32(max(block_time)) FROM transactions),
      (SELECT toUInt32(ifNull(max(block_time), toDateTime(0))) FROM token_transfers)) AS t`;
}
