import { z } from 'zod';
import { address, identifier, list, optionalText, optionalTimestamp, optionalUrl, socialHandle } from './fields.ts';
import { defineKind } from './record-kind.ts';

/**
 * A profile's full current state. Re-ingesting a profile replaces it (the newest
 * `updatedAt` wins); identifiers it no longer lists are unlinked from it.
 */
export const profileRecord = z
  .strictObject({
    profileId: identifier,
    name: optionalText(128),
    avatar: optionalUrl,
    addresses: list(address, 32),
    socialUsername: z.preprocess((v) => (v === '' || v === null ? undefined : v), socialHandle.optional()),
    gamePlatformId: z.preprocess((v) => (v === '' || v === null ? undefined : v), identifier.optional()),
    /** Defaults to the time of ingestion. */
    updatedAt: optionalTimestamp,
  })
  .transform((p) => ({
    profile_id: p.profileId,
    name: p.name,
    avatar: p.avatar,
    addresses: [...new Set(p.addresses)].sort(),
    social_username: p.socialUsername ?? '',
    game_platform_id: p.gamePlatformId ?? '',
    updated_at: p.updatedAt ?? Math.floor(Date.now() / 1000),
  }));

export type ProfileRow = z.output<typeof profileRecord>;

export const profilesKind = defineKind({
  name: 'profiles',
  table: 'profiles',
  description: 'Profiles with their linked wallet addresses, social handle and game-platform id.',
  schema: profileRecord,
  example: {
    profileId: 'p_7f3a9c',
    name: 'Alice',
    avatar: 'https://example.com/alice.png',
    addresses: ['0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff'],
    socialUsername: 'alice_eth',
    gamePlatformId: 'steam:76561198000000001',
    updatedAt: '2024-05-01T12:00:00Z',
  },
});
