/**
 * The last middlewares: whatever went wrong leaves as an envelope with a real HTTP status.
 * Unknown paths answer 404, known paths with another method 405 (with Allow), bad JSON
 * 400, and anything unexpected 500 with the request id (and a log line, never a stack
 * trace in the response).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../../shared/logger.ts';
import { ApiError, sendEnvelope } from '../../common/envelope.ts';

export function notFound(methodsByPath: Map<string, string[]>): RequestHandler {
  return (req, _res, next) => {
    const methods = methodsByPath.get(req.path);
    next(methods ? methodNotAllowed(methods) : new ApiError('notFound', `no such endpoint: ${req.method} ${req.path}`));
  };
}

/** For a path mounted with app.use (which takes every method): other methods answer 405 with Allow. */
export function onlyMethods(methods: string[]): RequestHandler {
  return (req, _res, next) => {
    next(methods.includes(req.method) ? undefined : methodNotAllowed(methods));
  };
}

function methodNotAllowed(methods: string[]): ApiError {
  return new ApiError('methodNotAllowed', `method not allowed: use ${methods.join(', ')}`, { Allow: methods.join(', ') });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const apiError = asApiError(error);
    if (apiError.errorName === 'internalError' || apiError.errorName === 'serviceUnavailable') {
      logger.error({ err: error, requestId: res.locals.requestId }, 'unhandled error');
    }
    sendEnvelope(res.status(apiError.status).set(apiError.headers), apiError.envelope());
  };
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as { type?: string; status?: number };
  if (e?.type === 'entity.parse.failed') return new ApiError('invalidJson');
  if (e?.type === 'entity.too.large') return new ApiError('invalidParameter', 'request body too large');
  // body-parser: a charset other than UTF-8, or a Content-Encoding it cannot undo.
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') return new ApiError('unsupportedBody');
  if (e?.status === 400) return new ApiError('invalidParameter');
  if (isUnreachable(error)) return new ApiError('serviceUnavailable');
  return new ApiError('internalError');
}

/** ClickHouse, Redis or an RPC that cannot be reached, or that stopped answering (ioredis: "Command timed out"): the caller may retry later (503). */
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|socket hang up|Timeout|timed out|Connection is closed|Stream isn't writeable/i;

/** Looks through wrapped errors (`cause`) too: a cache may wrap the connection failure. */
function isUnreachable(error: unknown, depth = 0): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (!e || depth > 5) return false;
  if (UNREACHABLE.test(String(e.code ?? '')) || UNREACHABLE.test(String(e.message ?? ''))) return true;
  return isUnreachable(e.cause, depth + 1);
}
