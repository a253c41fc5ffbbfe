/** A failure envelope from the soulgraph API: branch on `code` (docs/errors.md). */
export class SoulgraphApiError extends Error {
  override name = 'SoulgraphApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    readonly desc: string,
  ) {
    super(`soulgraph API ${status} ${code}: ${desc}`);
  }
}

/** A decryption the custody network (or Lit) refused or could not complete. */
export class TagDecryptionError extends Error {
  override name = 'TagDecryptionError';
}
