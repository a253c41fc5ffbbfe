/**
 * Validation at the edge: a request's query, headers and body go through zod before a
 * route sees them. A query parameter the endpoint does not know answers 11601 (a field
 * not supported in this version); any other problem answers invalid parameter, naming it.
 */
import type { z } from 'zod';
import { ApiError } from './envelope.ts';

export function parseQuery<Schema extends z.ZodObject>(schema: Schema, query: unknown): z.output<Schema> {
  const known = Object.keys(schema.shape);
  const unknown = Object.keys((query ?? {}) as object).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new ApiError('fieldNotSupported', `field not supported in the current version: ${unknown.join(', ')}`);
  }
  return parseWith(schema, query);
}

/** `field` names the value in the error when the schema is not an object (a single parameter). */
export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown, field?: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [field, ...issue.path].filter((p) => p !== undefined).join('.');
  throw new ApiError('invalidParameter', `invalid parameter: ${path ? `${path}: ` : ''}${issue.message}`);
}
