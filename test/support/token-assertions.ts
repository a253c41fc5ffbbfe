import { expect } from 'vitest';
import { TokenError, type TokenErrorReason } from '../../api/common/token-error.ts';

/** Asserts that the promise rejects with a TokenError of exactly this reason. */
export async function expectRejected(promise: Promise<unknown>, reason: TokenErrorReason): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenError);
  expect((error as TokenError).reason).toBe(reason);
}
