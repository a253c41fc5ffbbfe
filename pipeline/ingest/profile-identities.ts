/**
 * Keeps profile_identities in step with profiles, and enforces that an address, a social
 * handle or a game-platform id belongs to at most one profile: a profile record that would
 * take an identifier linked to another profile is rejected with that reason.
 *
 * Correct only when one chunk of profiles is processed at a time (the profiles queue runs
 * with global concurrency 1), since it reads the links, then writes new ones.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { ProfileRow } from '../../shared/records/profiles.ts';
import type { AcceptedRow, Reject } from './validate-chunk.ts';

export type IdentityKind = 'address' | 'social' | 'game';

/** What linking needs of a stored profile: its identifiers and the time of its state. */
type ProfileState = Pick<ProfileRow, 'addresses' | 'social_username' | 'game_platform_id' | 'updated_at'>;

export interface IdentityRow {
  kind: IdentityKind;
  identifier: string;
  profile_id: string;
  linked: 0 | 1;
  updated_at: number;
}

export interface LinkedProfiles {
  accepted: AcceptedRow[];
  identities: IdentityRow[];
  rejects: Reject[];
}

/** Each IN list stays well under ClickHouse's default 256 KiB max_query_size. */
const LOOKUP_BATCH = 2_000;
const KIND_LABEL: Record<IdentityKind, string> = { address: 'address', social: 'social handle', game: 'game-platform id' };

const ownerRow = z.object({ kind: z.enum(['address', 'social', 'game']), identifier: z.string(), profile_id: z.string() });
const stateRow = z.object({
  profile_id: z.string(),
  addresses: z.array(z.string()),
  social_username: z.string(),
  game_platform_id: z.string(),
  updated_at: z.coerce.number(),
});

export function identitiesOf(p: Pick<ProfileRow, 'addresses' | 'social_username' | 'game_platform_id'>) {
  const ids: { kind: IdentityKind; identifier: string }[] = p.addresses.map((a) => ({ kind: 'address', identifier: a }));
  if (p.social_username) ids.push({ kind: 'social', identifier: p.social_username });
  if (p.game_platform_id) ids.push({ kind: 'game', identifier: p.game_platform_id });
  return ids;
}

const keyOf = (kind: string, identifier: string) => `${kind}\u0000${identifier}`;

export async function linkProfileIdentities(
  ch: ClickHouse,
  rows: AcceptedRow[],
  rawByLine: Map<number, string>,
): Promise<LinkedProfiles> {
  const profiles = rows.map((r) => ({ line: r.line, profile: r.row as unknown as ProfileRow }));
  const owners = await currentOwners(ch, profiles.flatMap((p) => identitiesOf(p.profile).map((i) => i.identifier)));
  const states = await currentStates(ch, [...new Set(profiles.map((p) => p.profile.profile_id))]);

  const result: LinkedProfiles = { accepted: [], identities: [], rejects: [] };
  for (const { line, profile } of profiles) {
    const previous = states.get(profile.profile_id);
    if (previous && previous.updated_at > profile.updated_at) {
      // An older state than the one stored: keeping it is harmless (the newer row wins),
      // but its identifiers must not change the links.
      result.accepted.push({ line, row: profile });
      continue;
    }
    const wanted = identitiesOf(profile);
    const conflict = wanted.find((i) => {
      const owner = owners.get(keyOf(i.kind, i.identifier));
      return owner !== undefined && owner !== profile.profile_id;
    });
    if (conflict) {
      const owner = owners.get(keyOf(conflict.kind, conflict.identifier));
      result.rejects.push({
        line,
        reason: `${KIND_LABEL[conflict.kind]} ${conflict.identifier} already belongs to profile ${owner}`,
        raw: rawByLine.get(line) ?? '',
      });
      continue;
    }
    const kept = new Set(wanted.map((i) => keyOf(i.kind, i.identifier)));
    for (const old of previous ? identitiesOf(previous) : []) {
      if (kept.has(keyOf(old.kind, old.identifier))) continue;
      owners.delete(keyOf(old.kind, old.identifier));
      result.identities.push({ ...old, profile_id: profile.profile_id, linked: 0, updated_at: profile.updated_at });
    }
    for (const id of wanted) {
      owners.set(keyOf(id.kind, id.identifier), profile.profile_id);
      result.identities.push({ ...id, profile_id: profile.profile_id, linked: 1, updated_at: profile.updated_at });
    }
    states.set(profile.profile_id, profile);
    result.accepted.push({ line, row: profile });
  }
  return result;
}

async function currentOwners(ch: ClickHouse, identifiers: string[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  for (const batch of batches([...new Set(identifiers)], LOOKUP_BATCH)) {
    const rows = await ch.query(
      sql`SELECT toString(kind) AS kind, identifier, profile_id
          FROM profile_identities FINAL
          WHERE identifier IN ${inList(batch)} AND linked = 1`,
      ownerRow,
    );
    for (const r of rows) owners.set(keyOf(r.kind, r.identifier), r.profile_id);
  }
  return owners;
}

async function currentStates(ch: ClickHouse, profileIds: string[]): Promise<Map<string, ProfileState>> {
  const states = new Map<string, ProfileState>();
  for (const batch of batches(profileIds, LOOKUP_BATCH)) {
    const rows = await ch.query(
      sql`SELECT profile_id, addresses, social_username, game_platform_id, toUnixTimestamp(updated_at) AS updated_at
          FROM profiles FINAL
          WHERE profile_id IN ${inList(batch)}`,
      stateRow,
    );
    for (const r of rows) {
      states.set(r.profile_id, r);
    }
  }
  return states;
}

function* batches<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
