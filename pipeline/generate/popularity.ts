/**
 * Global popularity: a seeded ranking of all profiles, sampled with Zipf's law, so a few
 * accounts are followed by a large share of everyone (power-law in-degree).
 */
import { Rng, shuffledRange } from './random.ts';

/** ~1: the top account draws about 5% of global picks among a million profiles. */
const POPULARITY_EXPONENT = 1.05;

export class Popularity {
  private constructor(private readonly byRank: Int32Array) {}

  static rank(profiles: number, rng: Rng): Popularity {
    return new Popularity(shuffledRange(profiles, rng));
  }

  /** A profile, famous ones far more likely. */
  pick(rng: Rng): number {
    return this.byRank[rng.powerLawRank(this.byRank.length, POPULARITY_EXPONENT)]!;
  }
}
