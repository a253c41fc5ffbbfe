/**
 * Token amounts as decimal strings of base units (wei for ether). Built from digits
 * rather than floats or BigInt: exact, canonical (no leading zeros) and fast.
 */
import type { Rng } from './random.ts';

/** A typical ether payment: 0.001 to 20 ETH, log-uniform, in whole micro-ether. */
export function etherWei(rng: Rng): string {
  return `${Math.floor(rng.logUniform(1_000, 20_000_000))}000000000000`;
}

/** Dust: 1 to 9,999 wei, the kind of spam that must not count as a relationship. */
export function dustWei(rng: Rng): string {
  return String(rng.between(1, 9_999));
}

/** 1 to 50,000 whole tokens, log-uniform, with cent precision. */
export function tokenUnits(rng: Rng, decimals: number): string {
  const cents = Math.floor(rng.logUniform(100, 5_000_000));
  return `${cents}${'0'.repeat(decimals - 2)}`;
}
