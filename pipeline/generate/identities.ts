/**
 * Who a profile is: id, display name, avatar, social handle, game-platform id.
 * Each is a pure function of (seed, profile index); handles and ids embed the index so
 * two profiles can never share one.
 */
import { isoTime } from './chain-clock.ts';
import { FIRST_NAMES, HANDLE_WORDS, LAST_NAMES } from './names.ts';
import { hashFloat, hashWords, streamKey } from './random.ts';
import type { World } from './world.ts';

const IDENTITY = streamKey('identity');
const trait = { handle: 1, game: 2, gamePlatform: 3, name: 4, avatar: 5, updated: 6, word: 7 } as const;

/** 2024-01-01T00:00:00Z */
const YEAR_2024 = 1_704_067_200;

export function profileIdOf(world: World, profile: number): string {
  return `p_${world.ids.permute32(profile).toString(16).padStart(8, '0')}`;
}

/** 85% of profiles linked a social account. */
export function hasHandle(world: World, profile: number): boolean {
  return hashFloat(world.seed, IDENTITY, profile, trait.handle) < 0.85;
}

/** e.g. "degen_2s": the part after "_" is the index in base 36, so handles never collide. */
export function handleOf(world: World, profile: number): string | undefined {
  return hasHandle(world, profile) ? `${wordOf(world, profile)}_${profile.toString(36)}` : undefined;
}

/** 30% of profiles linked a game account: Steam-style or Epic-style ids, both derived from the index. */
export function gamePlatformIdOf(world: World, profile: number): string | undefined {
  if (hashFloat(world.seed, IDENTITY, profile, trait.game) >= 0.3) return undefined;
  return hashFloat(world.seed, IDENTITY, profile, trait.gamePlatform) < 0.7
    ? `steam:76561198${String(profile).padStart(9, '0')}`
    : `epic:${world.ids.permute32(profile).toString(16).padStart(8, '0')}`;
}

/** Mostly "First Last"; some people go by an ENS-style name. */
export function displayNameOf(world: World, profile: number): string {
  const h = hashWords(world.seed.lo, world.seed.hi, IDENTITY, profile, trait.name);
  if (h % 100 < 15) return `${wordOf(world, profile)}${h % 1000}.eth`;
  return `${FIRST_NAMES[(h >>> 8) % FIRST_NAMES.length]} ${LAST_NAMES[(h >>> 16) % LAST_NAMES.length]}`;
}

/** 88% uploaded an avatar. */
export function avatarOf(world: World, profile: number): string | undefined {
  if (hashFloat(world.seed, IDENTITY, profile, trait.avatar) >= 0.88) return undefined;
  return `https://cdn.soulgraph.example/avatars/${profileIdOf(world, profile)}.png`;
}

/** A fixed moment in 2024. */
export function profileUpdatedAt(world: World, profile: number): string {
  return isoTime(YEAR_2024 + Math.floor(hashFloat(world.seed, IDENTITY, profile, trait.updated) * 366 * 86_400));
}

function wordOf(world: World, profile: number): string {
  return HANDLE_WORDS[hashWords(world.seed.lo, world.seed.hi, IDENTITY, profile, trait.word) % HANDLE_WORDS.length]!;
}
