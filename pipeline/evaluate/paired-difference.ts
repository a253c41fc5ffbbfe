/**
 * Whether one method is ahead of another on the same users, or within noise. Two methods'
 * means on one split differ by chance as well as by merit: on Bitcoin-Alpha a difference of
 * 0.002 R@50 is a handful of users. The difference is paired (each user's metric under one
 * method minus under the other), so what both find alike cancels, and its 95 % interval is
 * the normal approximation, mean ± 1.96 standard errors: the scored users number in the
 * hundreds or more.
 */

export interface PairedDifference {
  /** Mean of ours − theirs over the users. */
  mean: number;
  /** The 95 % interval of that mean. */
  low: number;
  high: number;
  /** Users for whom ours is higher, lower. */
  better: number;
  worse: number;
  users: number;
}

/** ours[i] and theirs[i] are one user's metric under the two methods. */
export function pairedDifference(ours: readonly number[], theirs: readonly number[]): PairedDifference {
  if (ours.length !== theirs.length) throw new Error(`paired metrics need the same users: ${ours.length} against ${theirs.length}`);
  const n = ours.length;
  const d = ours.map((v, i) => v - theirs[i]!);
  const mean = n === 0 ? 0 : d.reduce((a, b) => a + b, 0) / n;
  const variance = n < 2 ? 0 : d.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  const half = n === 0 ? 0 : 1.96 * Math.sqrt(variance / n);
  return { mean, low: mean - half, high: mean + half, better: d.filter((v) => v > 0).length, worse: d.filter((v) => v < 0).length, users: n };
}

/** ahead or behind where the interval leaves out 0; else within noise (or the same for every user). */
export function verdictOf(p: PairedDifference): 'ahead' | 'behind' | 'within noise' | 'the same for every user' {
  if (p.better === 0 && p.worse === 0) return 'the same for every user';
  if (p.low > 0) return 'ahead';
  if (p.high < 0) return 'behind';
  return 'within noise';
}
