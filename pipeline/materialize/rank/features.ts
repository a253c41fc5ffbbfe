/**
 * What the ranker knows about a (profile, candidate) pair: one number per feature, each the
 * evidence of one source. The ranking model (ranking-model.ts) weighs them; the fit
 * (fit/model-fit.ts) learns the weights from the run's own newest follows. One list, used
 * alike by the nightly lists, the on-demand lists, the fit and `soulgraph eval`.
 *
 * Path features sum, over the profiles z that link the two, z's Adamic-Adar weight
 * 1 / ln(e + degree): someone who follows everybody says little about any one of them.
 */
export const FEATURES = [
  /** The candidate follows the profile (1 or 0). */
  'follows_you',
  /** ... and began after the profile's newest follow of its own: a follow it has not yet had the chance to return. */
  'new_follower',
  /** Paths profile -> z -> candidate: someone the profile follows follows the candidate. */
  'followee_follows',
  /** Paths profile <- z -> candidate through followers it does not follow: someone who follows the profile follows the candidate. */
  'follower_follows',
  /** Paths profile -> z <- candidate: both follow z. */
  'both_follow',
  /** Paths profile <- z <- candidate: the candidate follows someone who follows the profile. */
  'follows_follower',
  /** Every path of the four kinds together. */
  'adamic_adar',
  /** Every path of the four kinds again, each weighing resource allocation's 1 / degree: where many paths through busy profiles should not outweigh one through a quiet one. */
  'resource_allocation',
  /** The first two kinds again, each path weighed by how near in time its last follow is to the profile's newest follow. */
  'recent_paths',
  /** Personalized PageRank from the profile along follows (walks that reach beyond two hops). */
  'walks',
  /** How many follow the candidate. */
  'popularity',

  /** The profile's handle follows the candidate's on the social network (1 or 0). */
  'social',
  /** Transfers between their addresses, each halved every half-life. */
  'counterparty',
  /** Collections both hold, each weighing 1 / ln(1 + holders). */
  'nft',
] as const;

export type Feature = (typeof FEATURES)[number];
export const FEATURE_COUNT = FEATURES.length;
export const F = Object.fromEntries(FEATURES.map((name, i) => [name, i])) as { readonly [K in Feature]: number };

/**
 * The value the model weighs, from a raw sum: sums of path weights and of decayed transfers
 * grow without bound and say less with each unit (the tenth path adds less than the first),
 * so they enter as log(1 + x); the walks' probability as log(1 + x / WALK_SCALE), which puts
 * one restart's share of a two-hop walk near 1.
 */
export function transformed(feature: number, raw: number): number {
  switch (feature) {
    case F.follows_you:
    case F.new_follower:
    case F.social:
      return raw;
    case F.walks:
      return Math.log1p(raw / WALK_SCALE);
    case F.followee_follows:
    case F.follower_follows:
    case F.both_follow:
    case F.follows_follower:
    case F.resource_allocation:
    case F.adamic_adar:
    case F.recent_paths:
      return Math.log1p(raw);

    default:
      return Math.log1p(raw);
  }
}

/** The walk probability that counts as about one unit of evidence. */
export const WALK_SCALE = 1e-3;
