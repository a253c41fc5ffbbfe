/**
 * Compares a presented credential with the configured one in constant time. Both sides
 * are hashed first, so neither the comparison time nor an early length check tells an
 * attacker how much of a guess was right, or how long the secret is.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function matchesSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined || expected === '') return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
