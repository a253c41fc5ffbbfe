/**
 * How many buckets a nightly run splits its profiles into: enough that none holds more than
 * REC_PROFILES_PER_BUCKET profiles, nor more than REC_PAIRS_PER_BUCKET evidence rows (the
 * run's estimate, materialize-run.ts), and, once there is more than one, a multiple of
 * MATERIALIZE_CONCURRENCY: buckets run that many at a time, so five buckets on two slots
 * take three rounds, the last with a slot idle, where six smaller ones take three full ones.
 */
import type { Config } from '../../shared/config.ts';

export function bucketCount(
  world: { profiles: number; estimatedRows: number },
  config: Pick<Config, 'REC_PROFILES_PER_BUCKET' | 'REC_PAIRS_PER_BUCKET' | 'MATERIALIZE_CONCURRENCY'>,
): number {
  const needed = Math.max(1, Math.ceil(world.profiles / config.REC_PROFILES_PER_BUCKET), Math.ceil(world.estimatedRows / config.REC_PAIRS_PER_BUCKET));
  if (needed === 1) return 1;
  const slots = config.MATERIALIZE_CONCURRENCY;
  return Math.ceil(needed / slots) * slots;
}
