/**
 * What a profile's own list starts from: whom it follows, who follows it (and since when),
 * whom its handle follows, its counterparties and its collections. For a profile of the
 * world, views of the world's arrays; for one the world does not hold yet (a newcomer) or
 * holds as it was (a profile whose follows changed since), the same read live
 * (run/on-demand-lists.ts), so that one ranker serves both.
 */
import type { World } from '../graph/world.ts';

export interface OwnFacts {
  /** Its dense id in the world, or -1 when the world does not hold it. */
  profile: number;
  followees: Uint32Array;
  followers: Uint32Array;
  /** When each follower began following (beside followers). */
  followerTimes: Uint32Array;
  /** When it last followed anyone (0: never, or no times), and that moment among the world's follows (-1: none). */
  newestFollow: number;
  newestMoment: number;
  /** Profiles whose handle its handle follows. */
  social: Uint32Array;
  counterparties: OwnCounterparties;
  /** Collection numbers it holds a token of. */
  holdings: Uint32Array;
}

export interface OwnCounterparties {
  profile: Uint32Array;
  weight: Float64Array;
  chainId: Uint32Array;
  transfers: Uint32Array;
  last: Uint32Array;
}

/** Profile p's facts as the world holds them (views, not copies). */
export function ownFactsOf(world: Pick<World, 'follows' | 'moments' | 'signals'>, p: number): OwnFacts {
  const g = world.follows;
  const s = world.signals;
  const range = <T extends Uint32Array | Float64Array>(array: T, offsets: Uint32Array): T => array.subarray(offsets[p]!, offsets[p + 1]!) as T;
  let newestMoment = -1;
  if (world.moments) for (let i = g.out.offsets[p]!, end = g.out.offsets[p + 1]!; i < end; i++) newestMoment = Math.max(newestMoment, world.moments.outMoments[i]!);
  return {
    profile: p,
    followees: range(g.out.targets, g.out.offsets),
    followers: range(g.in.targets, g.in.offsets),
    followerTimes: range(g.inTimes, g.in.offsets),
    newestFollow: g.newestFollow(p),
    newestMoment,
    social: range(s.social.targets, s.social.offsets),
    counterparties: {
      profile: range(s.counterparties.targets, s.counterparties.offsets),
      weight: range(s.counterpartyWeight, s.counterparties.offsets),
      chainId: range(s.counterpartyChain, s.counterparties.offsets),
      transfers: range(s.counterpartyTransfers, s.counterparties.offsets),
      last: range(s.counterpartyLast, s.counterparties.offsets),
    },
    holdings: range(s.holdings.targets, s.holdings.offsets),
  };
}
