/**
 * The response envelope `{code, desc, data}` of every answer, success or failure, and
 * the error type routes throw to produce a failure envelope.
 */
import type { Response } from 'express';
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

const SUCCESS_HEAD = JSON.stringify(success(null)).slice(0, -'null}'.length);

/**
 * Every envelope leaves through these functions, which note its code on the response for the
 * access log and the request metrics (envelopeCodeOf).
 */
export function sendEnvelope<T>(res: Response, envelope: Envelope<T>): void {
  res.locals.envelopeCode = envelope.code;
  res.json(envelope);
}

export function sendSuccess<T>(res: Response, data: T): void {
  sendEnvelope(res, success(data));
}

/** The code of the envelope the response carries; undefined when it carries none (OpenAPI, /docs, /metrics). */
export function envelopeCodeOf(res: Response): string | undefined {
  return res.locals.envelopeCode as string | undefined;
}

/**
 * Sends what sendSuccess(res, data) would send, for data that is JSON text already (a
 * served recommend page arrives from Redis encoded): it is spliced in, not re-encoded.
 * The body goes to Node as a string, not through res.send, which turns a body of 1,000
 * characters or more into a Buffer of its own (an external allocation per request) that
 * Node then writes apart from the headers; Node writes a string body and its headers in
 * one write. ETags are off (app.ts), and Node drops the body of a HEAD answer itself.
 */
export function sendEncodedSuccess(res: Response, data: string): void {
  const body = `${SUCCESS_HEAD}${data}}`;
  res.locals.envelopeCode = errorCodes.success.code;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
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
