/**
 * Profiles by identifier, through profile_identities (ordered by identifier: one granule
 * per lookup, not a scan of profiles).
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';

export type IdentifierKind = 'address' | 'social' | 'game';

const idRow = z.object({ profile_id: z.string() });
const summaryRow = z.object({ profile_id: z.string(), name: z.string(), avatar: z.string() });

export type ProfileSummary = z.infer<typeof summaryRow>;

/** The subquery for the profile an identifier is linked to now (no row when none). */
export function profileIdsWith(kind: IdentifierKind, identifier: string): SqlFragment {
  return sql`SELECT profile_id FROM profile_identities FINAL
             WHERE kind = ${kind} AND identifier = ${identifier} AND linked = 1`;
}

/** The subquery for the addresses of the profile an identifier is linked to, one row each. */
export function profileAddressesWith(kind: IdentifierKind, identifier: string): SqlFragment {
  return sql`SELECT arrayJoin(addresses) FROM profiles FINAL
             WHERE profile_id IN (${profileIdsWith(kind, identifier)})`;
}

export async function profileIdBy(ch: ClickHouse, kind: IdentifierKind, identifier: string): Promise<string | undefined> {
  const [row] = await ch.query(profileIdsWith(kind, identifier), idRow);
  return row?.profile_id;
}

export async function profileExists(ch: ClickHouse, profileId: string): Promise<boolean> {
  const rows = await ch.query(sql`SELECT profile_id FROM profiles FINAL WHERE profile_id = ${profileId}`, idRow);
  return rows.length > 0;
}

const profileAddressesRow = z.object({ profile_id: z.string(), addresses: z.array(z.string()) });

/** The profile an identifier belongs to, with its addresses, in one round trip; undefined if none. */
export async function profileWith(ch: ClickHouse, kind: IdentifierKind, identifier: string): Promise<{ profileId: string; addresses: string[] } | undefined> {
  const [row] = await ch.query(
    sql`SELECT profile_id, addresses FROM profiles FINAL
        WHERE profile_id IN (${profileIdsWith(kind, identifier)})`,
    profileAddressesRow,
  );
  return row ? { profileId: row.profile_id, addresses: row.addresses } : undefined;
}

export async function profileSummaries(ch: ClickHouse, profileIds: string[]): Promise<Map<string, ProfileSummary>> {
  if (profileIds.length === 0) return new Map();
  const rows = await ch.query(
    sql`SELECT profile_id, name, avatar FROM profiles FINAL WHERE profile_id IN ${inList([...new Set(profileIds)])}`,
    summaryRow,
  );
  return new Map(rows.map((r) => [r.profile_id, r]));
}
