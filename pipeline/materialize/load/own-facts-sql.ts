/**
 * A caller's own facts, read live for a list computed on demand (run/on-demand-lists.ts): its
 * profile, its follows both ways, whom its handle follows, and its transfers and holdings
 * from its own rows alone (own-transfers.ts). Each a read of a few rows by key.
 */
import { inList, sql, type SqlFragment } from '../../../shared/clickhouse/sql-literal.ts';
import { decayedSql, interactionEndsSql, ownRowsSql, touchingSql, ZERO_ADDRESS, type InputRules } from './inputs-sql.ts';
import type { OwnTransfers } from './own-transfers.ts';

/** addresses (with their hashes), social_username of one profile. */
export function ownProfileSql(profileId: string): SqlFragment {
  return sql`SELECT addresses, arrayMap(a -> toString(cityHash64(a)), addresses) AS address_hashes, social_username FROM profiles FINAL WHERE profile_id = ${profileId}`;
}

/** followee hash, followed_at: whom the profile follows now (follows is ordered by follower). */
export function ownFolloweesSql(profileId: string): SqlFragment {
  return sql`SELECT cityHash64(followee_profile_id), toUInt32(followed_at) FROM follows FINAL WHERE follower_profile_id = ${profileId} AND active = 1`;
}

/** follower hash, followed_at: who follows the profile now (follows_by_followee, migration 053, is ordered by followee). */
export function ownFollowersSql(profileId: string): SqlFragment {
  return sql`SELECT cityHash64(follower_profile_id), toUInt32(followed_at) FROM follows_by_followee FINAL WHERE followee_profile_id = ${profileId} AND active = 1`;
}

/** followee hash: the handles a handle follows now. */
export function ownSocialFollowsSql(handle: string): SqlFragment {
  return sql`SELECT cityHash64(followee) FROM social_follows FINAL WHERE follower = ${handle} AND active = 1`;
}

/**
 * other's hash, chain_id, transfers, last, weight: one caller's transfers with other
 * addresses, per address and chain (the resident engine maps them to profiles and drops
 * excluded ones).
 */
export function ownCounterpartiesSql(rules: InputRules, asOf: number, own: OwnTransfers): SqlFragment {
  return sql`
    SELECT cityHash64(other), chain_id, toUInt32(count()) AS transfers, max(time) AS last, sum(${decayedSql(rules, asOf)}) AS weight
    FROM (${interactionEndsSql(rules, asOf, own)})
    WHERE own IN ${inList(own.addresses)} AND other NOT IN ${inList(own.addresses)}
    GROUP BY other, chain_id`;
}

/** chain_id, contract: the collections one caller holds a token of, summed from its own transfers. */
export function ownHoldingsSql(own: OwnTransfers): SqlFragment {
  return sql`SELECT DISTINCT chain_id, contract FROM (${holdingsOfSql(own)})`;
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

