/**
 * Seeded randomness for the demo world. Every random decision is drawn from a stream
 * named by (seed, stream, unit), e.g. (42, "transactions", profile 1234), so one kind's
 * output never depends on which other kinds were generated or in which order.
 */

/** The user's seed (any safe integer) split into two 32-bit words. */
export interface Seed {
  readonly lo: number;
  readonly hi: number;
}

export function seedOf(value: number): Seed {
  return { lo: value >>> 0, hi: Math.floor(value / 0x1_0000_0000) >>> 0 };
}

/** murmur3's finalizer: a bijection on 32-bit integers with full avalanche. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** An order-sensitive 32-bit hash of up to five 32-bit words. */
export function hashWords(a: number, b: number, c = 0, d = 0, e = 0): number {
  let h = mix32(a ^ 0x9e3779b9);
  h = mix32((h + 0x7f4a7c15) ^ b);
  h = mix32((h + 0x7f4a7c15) ^ c);
  h = mix32((h + 0x7f4a7c15) ^ d);
  return mix32((h + 0x7f4a7c15) ^ e);
}

/** FNV-1a of a name, so streams can be named ("transactions") instead of numbered. */
export function streamKey(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A uniform number in [0, 1) that is a pure function of its inputs (no stream needed). */
export function hashFloat(seed: Seed, stream: number, unit: number, salt = 0): number {
  return hashWords(seed.lo, seed.hi, stream, unit, salt) / 0x1_0000_0000;
}

/** sfc32: small, fast, and passes PractRand; plenty for synthetic data. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
    // Seeds that differ in few bits need a few rounds before their outputs decorrelate.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** Uniform in [min, max) on a log scale: as many values between 1 and 10 as between 10 and 100. */
  logUniform(min: number, max: number): number {
    return min * Math.exp(this.float() * Math.log(max / min));
  }

  /** Pareto(min, alpha): heavy-tailed, mean alpha*min/(alpha-1) for alpha > 1. */
  pareto(min: number, alpha: number): number {
    return min / Math.pow(1 - this.float(), 1 / alpha);
  }

  /** Poisson-distributed count (Knuth's method; fine for the small means used here). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean);
    let count = 0;
    for (let p = this.float(); p > limit; p *= this.float()) count++;
    return count;
  }

  /**
   * A rank in [0, n) with P(rank) roughly proportional to 1/(rank+1)^exponent: Zipf's law,
   * sampled by inverting the continuous power-law CDF so it costs O(1) for any n.
   */
  powerLawRank(n: number, exponent: number): number {
    const u = this.float();
    let x: number;
    if (Math.abs(exponent - 1) < 1e-9) {
      x = Math.pow(n + 1, u);
    } else {
      const q = 1 - exponent;
      x = Math.pow(1 + u * (Math.pow(n + 1, q) - 1), 1 / q);
    }
    return Math.min(n - 1, Math.max(0, Math.floor(x) - 1));
  }
}

/** The random stream for one unit (usually a profile) of one named stream. */
export function rngFor(seed: Seed, stream: number, unit: number): Rng {
  return new Rng(
    hashWords(seed.lo, seed.hi, stream, unit, 1),
    hashWords(seed.lo, seed.hi, stream, unit, 2),
    hashWords(seed.lo, seed.hi, stream, unit, 3),
    hashWords(seed.lo, seed.hi, stream, unit, 4),
  );
}

/** 0..n-1 in a random order (Fisher-Yates), as a typed array so a million profiles cost 4 MB. */
export function shuffledRange(n: number, rng: Rng): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const swap = order[i]!;
    order[i] = order[j]!;
    order[j] = swap;
  }
  return order;
}
