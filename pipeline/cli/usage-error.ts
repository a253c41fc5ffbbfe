/** A mistake in how a command was called: one line on stderr and exit code 2, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
