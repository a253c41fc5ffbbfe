/** Each profile's wallet addresses: 1-3, derived from (seed, profile, slot), never stored. */
import { idDomain } from './hex-ids.ts';
import { hashFloat, streamKey, type Rng } from './random.ts';
import type { World } from './world.ts';

const WALLETS = streamKey('wallets');
/** Room for this many addresses per profile in the address id space. */
const SLOTS = 4;

/** 60% of people use one wallet, 28% two, 12% three. */
export function addressCountOf(world: World, profile: number): number {
  const u = hashFloat(world.seed, WALLETS, profile);
  return u < 0.6 ? 1 : u < 0.88 ? 2 : 3;
}

export function addressOf(world: World, profile: number, slot: number): string {
  return world.ids.address(idDomain.profileAddress, profile * SLOTS + slot);
}

export function addressesOf(world: World, profile: number): string[] {
  return Array.from({ length: addressCountOf(world, profile) }, (_, slot) => addressOf(world, profile, slot));
}

/** One of the profile's addresses; the first (main) wallet does most of the activity. */
export function activeAddressOf(world: World, profile: number, rng: Rng): string {
  const count = addressCountOf(world, profile);
  const slot = count === 1 || rng.chance(0.7) ? 0 : rng.between(1, count - 1);
  return addressOf(world, profile, slot);
}
