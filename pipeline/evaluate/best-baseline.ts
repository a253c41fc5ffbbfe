/**
 * The question docs/quality.md asks of every split: is the recommender at least the best
 * baseline, per metric and k? Answered with the paired difference on the same users
 * (paired-difference.ts), so that a gap of a few users reads as within noise, not as a loss.
 */
import { pairedDifference, verdictOf, type PairedDifference } from './paired-difference.ts';
import { averageMetrics, type MetricsAtK } from './ranking-metrics.ts';

/** The metrics compared: what the bar names (precision and recall). */
const COMPARED = [
  { metric: 'recall', label: 'R' },
  { metric: 'precision', label: 'P' },
] as const;

export interface BaselineComparison {
  /** e.g. "R@50". */
  measure: string;
  ours: number;
  baseline: string;
  theirs: number;
  difference: PairedDifference;
  verdict: ReturnType<typeof verdictOf>;
}

/**
 * `perUser` holds each method's per-user metrics, one array per k (in `ks` order), every
 * method's arrays over the same users in the same order. `ours` names the recommender; every
 * other method is a baseline, the best one being the highest mean (the first listed on a tie).
 */
export function compareWithBestBaseline(perUser: ReadonlyMap<string, readonly (readonly MetricsAtK[])[]>, ours: string, ks: readonly number[]): BaselineComparison[] {
  const mine = perUser.get(ours);
  if (!mine) throw new Error(`no metrics for ${ours}`);
  const baselines = [...perUser].filter(([method]) => method !== ours);
  if (baselines.length === 0) throw new Error(`no baseline to compare ${ours} with`);
  return ks.flatMap((k, i) =>
    COMPARED.map(({ metric, label }) => {
      const values = (users: readonly MetricsAtK[]) => users.map((m) => m[metric]);
      const mean = (users: readonly MetricsAtK[]) => averageMetrics(users, k)[metric];
      // Strictly greater: on a tie the first listed stays.
      const [baseline, byK] = baselines.reduce((best, next) => (mean(next[1][i]!) > mean(best[1][i]!) ? next : best));
      const difference = pairedDifference(values(mine[i]!), values(byK[i]!));
      return { measure: `${label}@${k}`, ours: mean(mine[i]!), baseline, theirs: mean(byK[i]!), difference, verdict: verdictOf(difference) };
    }),
  );
}

/** One line per measure, as eval prints it. */
export function comparisonLine(c: BaselineComparison, ours: string): string {
  const d = c.difference;
  return (
    `${c.measure}: ${ours} ${c.ours.toFixed(4)}, best baseline ${c.baseline} ${c.theirs.toFixed(4)} (${ratioOf(c)}); ` +
    `paired difference ${signed(d.mean)}, 95% interval ${signed(d.low)} to ${signed(d.high)} (${users(d.better)} better, ${d.worse} worse): ${c.verdict}`
  );
}

/** The same as a Markdown table. */
export function comparisonTableMarkdown(comparisons: readonly BaselineComparison[], ours: string): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(['measure', ours, 'best baseline', 'its value', 'ratio', 'paired difference (95% interval)', 'users better / worse', 'verdict']),
    line(['---', '---:', '---', '---:', '---:', '---', '---:', '---']),
    ...comparisons.map((c) =>
      line([
        c.measure,
        c.ours.toFixed(4),
        c.baseline,
        c.theirs.toFixed(4),
        ratioOf(c),
        `${signed(c.difference.mean)} (${signed(c.difference.low)} to ${signed(c.difference.high)})`,
        `${c.difference.better} / ${c.difference.worse}`,
        c.verdict,
      ]),
    ),
  ].join('\n');
}

function ratioOf(c: BaselineComparison): string {
  return c.theirs > 0 ? `× ${(c.ours / c.theirs).toFixed(3)}` : 'no ratio: the baseline scores 0';
}

function users(n: number): string {
  return `${n} ${n === 1 ? 'user' : 'users'}`;
}

/** A difference with its sign, +0.0000 for one that rounds to nothing either way. */
function signed(v: number): string {
  const fixed = v.toFixed(4);
  if (fixed === '-0.0000') return '+0.0000';
  return fixed.startsWith('-') ? fixed : `+${fixed}`;
}
