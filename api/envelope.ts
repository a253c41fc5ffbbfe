/**
 * The response envelope `{code, desc, data}` of every answer, success or failure, and
 * the error type routes throw to produce a failure envelope.
 */
import { z } from 'zod';
import { errorCodes, type ErrorName } from './error-codes.ts';

export interface Envelope<T> {
  code: string;
  desc: string;
  data: T;
}

export function success<T>(data: T): Envelope<T> {
  return { code: errorCodes.success.code, desc: errorCodes.success.desc, data };
}

/** Thrown by routes and middleware; the error handler turns it into an envelope. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly errorName: ErrorName,
    /** A more specific description than the table's default. */
    desc?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(desc ?? errorCodes[errorName].desc);
  }

  get status(): number {
    return errorCodes[this.errorName].status;
  }

  envelope(): Envelope<null> {
    return { code: errorCodes[this.errorName].code, desc: this.message, data: null };
  }
}

/** The schema of an envelope around `data`, for OpenAPI. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.string().meta({ description: '"0" on success; see docs/errors.md', example: '0' }),
    desc: z.string().meta({ description: 'Human-readable result; not a stable contract', example: 'success' }),
    data,
  });
}
