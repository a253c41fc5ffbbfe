/**
 * Close contacts: the handful of community members a profile pays again and again.
 * Repeated counterparties are the strongest on-chain signal of a real relationship, so
 * native and token transfers both draw on the same contacts (from their own stream,
 * so neither kind depends on the other being generated).
 */
import { rngFor, streamKey, type Rng } from './random.ts';
import type { World } from './world.ts';

const CONTACTS = streamKey('contacts');

export function closeContactsOf(world: World, profile: number): number[] {
  const rng = rngFor(world.seed, CONTACTS, profile);
  const wanted = rng.between(1, 4);
  const contacts: number[] = [];
  for (let attempt = 0; contacts.length < wanted && attempt < 12; attempt++) {
    const peer = world.communities.anyPeer(profile, rng);
    if (peer >= 0 && !contacts.includes(peer)) contacts.push(peer);
  }
  return contacts;
}

/** A counterparty in the profile's circle: usually a close contact, else anyone in its community; -1 if none. */
export function circleCounterparty(world: World, profile: number, contacts: readonly number[], rng: Rng): number {
  if (contacts.length > 0 && rng.chance(0.75)) return rng.pick(contacts);
  return world.communities.anyPeer(profile, rng);
}

/** Anyone else in the world, uniformly (weak ties, dust senders); -1 if the world has one profile. */
export function strangerOf(world: World, profile: number, rng: Rng): number {
  if (world.profiles < 2) return -1;
  const other = rng.below(world.profiles - 1);
  return other >= profile ? other + 1 : other;
}
