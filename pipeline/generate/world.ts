/**
 * The shared skeleton every kind is drawn from: who belongs to which community and who is
 * famous. It depends only on (seed, profiles), never on which kinds are generated.
 */
import { Communities } from './communities.ts';
import { HexIds } from './hex-ids.ts';
import { Popularity } from './popularity.ts';
import { rngFor, seedOf, streamKey, type Seed } from './random.ts';

export interface World {
  readonly seed: Seed;
  readonly profiles: number;
  readonly chainId: number;
  readonly ids: HexIds;
  readonly communities: Communities;
  readonly popularity: Popularity;
  /** Multiplies how many profiles each profile follows in the app (1 = about 7 on average). */
  readonly appFollowScale: number;
}

export function createWorld(seed: number, profiles: number, chainId: number, appFollowScale = 1): World {
  const key = seedOf(seed);
  return {
    seed: key,
    profiles,
    chainId,
    appFollowScale,
    ids: new HexIds(key),
    communities: Communities.layout(profiles, rngFor(key, streamKey('communities'), 0)),
    popularity: Popularity.rank(profiles, rngFor(key, streamKey('popularity'), 0)),
  };
}
