/**
 * How the features of a pair make its score: a weighted sum of their transformed values
 * (features.ts), the weights fitted by each run to its own newest follows (fit/model-fit.ts).
 * A list is the candidates by score, best first.
 *
 * DEFAULT_WEIGHTS serve where the run has too little to fit them (a small or new
 * deployment), and the fit is drawn towards them, so that a feature the run's follows say
 * nothing about keeps its default rather than falling to nothing.
 */
import { z } from 'zod';
import { FEATURE_COUNT, FEATURES, transformed } from './features.ts';

export const rankingModelSchema = z.object({
  /** One weight per feature, in FEATURES order. */
  weights: z.array(z.number()).length(FEATURE_COUNT),
  /** 'fitted' when the run's held-out follows chose them, 'default' otherwise. */
  source: z.enum(['fitted', 'default']),
});
export type RankingModel = z.infer<typeof rankingModelSchema>;

/**
 * Where no fit is possible. Fitted on the dev graphs' training follows (docs/quality.md)
 * and rounded: following back and friends' follows first, then the rest.
 */
export const DEFAULT_WEIGHTS: Readonly<Record<(typeof FEATURES)[number], number>> = {
  follows_you: 3,
  new_follower: 1,
  followee_follows: 1.5,
  follower_follows: 1,
  both_follow: 0.5,
  follows_follower: 0.3,
  adamic_adar: 0,
  resource_allocation: 1,
  recent_paths: 0.5,
  walks: 0.5,
  popularity: 0.3,

  social: 2,
  counterparty: 1.5,
  nft: 1,
};

export const DEFAULT_MODEL: RankingModel = { weights: FEATURES.map((f) => DEFAULT_WEIGHTS[f]), source: 'default' };

/** The score of a candidate whose raw features are raw[offset .. offset + FEATURE_COUNT). */
export function scoreOf(weights: readonly number[], raw: Float64Array, offset: number): number {
  let score = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) {
    const value = raw[offset + f]!;
    if (value !== 0) score += weights[f]! * transformed(f, value);
  }
  return score;
}
