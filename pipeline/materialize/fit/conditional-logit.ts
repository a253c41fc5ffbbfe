/**
 * The weights under which each profile's actual next follows are the likeliest choice among
 * its candidates: a conditional logit (McFadden's choice model), where the chance that a
 * profile picks candidate c is exp(w · x_c) / Σ exp(w · x_j) over its candidates. It asks
 * what a list is for, which candidate comes first, and not whether a pair is a follow at
 * all, so a profile's own level of activity does not enter.
 *
 * Fitted by Newton's method (a dozen features: the Hessian is tiny) with a penalty
 * (λ/2)·|w - prior|², which keeps a feature the data cannot tell apart at its prior weight.
 */

/**
 * One profile's candidates: `rows` transformed feature vectors (row-major, `features` each),
 * the first `chosen` of them its actual next follows; each row stands for `counts[row]`
 * candidates (a sample of the others).
 */
export interface ChoiceGroup {
  rows: Float64Array;
  counts: Float64Array;
  chosen: number;
}

export interface LogitFit {
  weights: number[];
  /** Mean log-likelihood of a chosen row at the fitted weights. */
  logLikelihood: number;
  iterations: number;
}

export function fitConditionalLogit(groups: readonly ChoiceGroup[], prior: readonly number[], lambda: number, maxIterations = 12): LogitFit {
  const k = prior.length;
  let w = [...prior];
  let value = objective(groups, w, prior, lambda);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    const { gradient, hessian } = derivatives(groups, w, prior, lambda);
    const step = solve(hessian, gradient);
    if (!step) break;
    // Backtracking: Newton's step can overshoot where the likelihood is flat.
    let scale = 1;
    let next = w;
    let nextValue = -Infinity;
    for (let tries = 0; tries < 20 && !(nextValue >= value); tries++, scale /= 2) {
      next = w.map((x, i) => x + scale * step[i]!);
      nextValue = objective(groups, next, prior, lambda);
    }
    if (!(nextValue >= value)) break;
    const gain = nextValue - value;
    w = next;
    value = nextValue;
    if (gain < 1e-5 * Math.max(1, Math.abs(value))) break;
  }
  const chosen = groups.reduce((n, g) => n + g.chosen, 0);
  return { weights: w, logLikelihood: logLikelihood(groups, w, k) / Math.max(1, chosen), iterations };
}

function scoresOf(g: ChoiceGroup, w: readonly number[], k: number, out: Float64Array): number {
  const n = g.counts.length;
  let top = -Infinity;
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < k; i++) s += w[i]! * g.rows[j * k + i]!;
    out[j] = s;
    if (s > top) top = s;
  }
  return top;
}

let scratch = new Float64Array(1024);
function scratchOf(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(n * 2);
  return scratch;
}

function logLikelihood(groups: readonly ChoiceGroup[], w: readonly number[], k: number): number {
  let total = 0;
  for (const g of groups) {
    const n = g.counts.length;
    const scores = scratchOf(n);
    const top = scoresOf(g, w, k, scores);
    let sum = 0;
    for (let j = 0; j < n; j++) sum += g.counts[j]! * Math.exp(scores[j]! - top);
    const logSum = top + Math.log(sum);
    for (let c = 0; c < g.chosen; c++) total += scores[c]! - logSum;
  }
  return total;
}

function objective(groups: readonly ChoiceGroup[], w: readonly number[], prior: readonly number[], lambda: number): number {
  let penalty = 0;
  for (let i = 0; i < w.length; i++) penalty += (w[i]! - prior[i]!) ** 2;
  return logLikelihood(groups, w, w.length) - (lambda / 2) * penalty;
}

/** The gradient of the objective and minus its Hessian (positive definite). */
function derivatives(groups: readonly ChoiceGroup[], w: readonly number[], prior: readonly number[], lambda: number): { gradient: number[]; hessian: number[][] } {
  const k = w.length;
  const gradient = w.map((x, i) => -lambda * (x - prior[i]!));
  const hessian = new Float64Array(k * k);
  for (let i = 0; i < k; i++) hessian[i * k + i] = lambda;
  const mean = new Float64Array(k);
  const centred = new Float64Array(k);
  for (const g of groups) {
    if (g.chosen === 0) continue;
    const n = g.counts.length;
    const p = scratchOf(n);
    const top = scoresOf(g, w, k, p);
    let total = 0;
    for (let j = 0; j < n; j++) total += p[j] = g.counts[j]! * Math.exp(p[j]! - top);
    mean.fill(0);
    for (let j = 0; j < n; j++) {
      const share = p[j]! / total;
      for (let i = 0; i < k; i++) mean[i]! += share * g.rows[j * k + i]!;
    }
    for (let c = 0; c < g.chosen; c++) for (let i = 0; i < k; i++) gradient[i]! += g.rows[c * k + i]! - mean[i]!;
    for (let j = 0; j < n; j++) {
      const share = (g.chosen * p[j]!) / total;
      if (share === 0) continue;
      for (let i = 0; i < k; i++) centred[i] = g.rows[j * k + i]! - mean[i]!;
      for (let a = 0; a < k; a++) {
        const da = share * centred[a]!;
        if (da === 0) continue;
        for (let b = a; b < k; b++) hessian[a * k + b]! += da * centred[b]!;
      }
    }
  }
  // Only the upper triangle was summed: the matrix is symmetric.
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) hessian[a * k + b] = hessian[b * k + a]!;
  return { gradient, hessian: Array.from({ length: k }, (_, a) => Array.from(hessian.subarray(a * k, (a + 1) * k))) };
}

/** x with A·x = b (Gaussian elimination with partial pivoting); undefined if A is singular. */
export function solve(a: readonly (readonly number[])[], b: readonly number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (Math.abs(m[pivot]![col]!) < 1e-12) return undefined;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = m[r]![col]! / m[col]![col]!;
      if (factor === 0) continue;
      for (let c = col; c <= n; c++) m[r]![c]! -= factor * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}
