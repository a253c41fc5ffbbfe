/** `profiles.jsonl`: one record per profile, in index order. */
import { avatarOf, displayNameOf, gamePlatformIdOf, handleOf, profileIdOf, profileUpdatedAt } from './identities.ts';
import type { KindSource } from './kind-source.ts';
import { addressesOf } from './wallets.ts';
import type { World } from './world.ts';

export function profileSource(world: World): KindSource {
  return {
    kind: 'profiles',
    units: world.profiles,
    recordsOf: (profile) => [profileRecord(world, profile)],
  };
}

function profileRecord(world: World, profile: number) {
  return {
    profileId: profileIdOf(world, profile),
    name: displayNameOf(world, profile),
    avatar: avatarOf(world, profile),
    addresses: addressesOf(world, profile),
    socialUsername: handleOf(world, profile),
    gamePlatformId: gamePlatformIdOf(world, profile),
    updatedAt: profileUpdatedAt(world, profile),
  };
}
