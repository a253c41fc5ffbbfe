/**
 * Fixed points in time for the demo world. Nothing reads the wall clock, so the same
 * seed always yields the same bytes.
 */
import type { Rng } from './random.ts';

export const DAY = 86_400;

/** 2021-01-01T00:00:00Z: social follows reach further back than on-chain activity. */
export const SOCIAL_START = 1_609_459_200;
/** 2023-01-01T00:00:00Z */
export const CHAIN_START = 1_672_531_200;
/** 2025-01-01T00:00:00Z (exclusive) */
export const CHAIN_END = 1_735_689_600;
/** 2024-12-31T00:00:00Z: when labels, collections and issuers were last refreshed. */
export const CATALOG_UPDATED_AT = '2024-12-31T00:00:00Z';

/** Ethereum mainnet's block at CHAIN_START, roughly; blocks then come every 12 s. */
const FIRST_BLOCK = 16_308_190;
const BLOCK_SECONDS = 12;

/** The block containing unix time `seconds`: later times never get earlier blocks. */
export function blockNumberAt(seconds: number): number {
  return FIRST_BLOCK + Math.floor((seconds - CHAIN_START) / BLOCK_SECONDS);
}

/** A uniform unix time in [from, to). */
export function timeBetween(rng: Rng, from: number, to: number): number {
  return from + rng.below(to - from);
}

/** ISO 8601 without milliseconds, e.g. 2024-05-01T12:00:00Z. */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
