/**
 * One structured log line per request: method, path, status, envelope code, duration,
 * the request id (echoed to the client as X-Request-Id) and the ApiKey's public id —
 * never the key, a token or a signature, and never the query string (it may carry `sig`).
 * The same moment feeds the request metrics (api/server/request-metrics.ts).
 *
 * Cheap on purpose (it runs on every request of a throughput-bound API): one shared
 * 'finish' listener instead of a closure per request, the start time kept in res.locals,
 * the envelope code noted by whatever sent the envelope (api/common/envelope.ts) instead of a
 * per-request wrapper, and no log object built when the level would drop it.
 */
import type { RequestHandler, Response } from 'express';
import type { ApiKeyRecord } from '../../../shared/api-keys.ts';
import type { Logger } from '../../../shared/logger.ts';
import { envelopeCodeOf } from '../../common/envelope.ts';
import type { RequestMetrics } from '../request-metrics.ts';

export function accessLog(logger: Logger, metrics?: RequestMetrics): RequestHandler {
  function onFinish(this: Response): void {
    const res = this;
    const req = res.req;
    const ms = performance.now() - (res.locals.startedAt as number);
    const code = envelopeCodeOf(res);
    metrics?.observe(req.path, req.method, code, ms / 1000);
    const failed = res.statusCode >= 500;
    if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
    const apiKey = res.locals.apiKey as ApiKeyRecord | undefined;
    const line = {
      requestId: res.locals.requestId as string,
      method: req.method,
      path: req.path,
      status: res.statusCode,
      code,
      ms: Math.round(ms * 10) / 10,
      apiKeyId: apiKey?.keyId,
    };
    if (failed) logger.error(line, 'request');
    else logger.info(line, 'request');
  }
  return (_req, res, next) => {
    res.locals.startedAt = performance.now();
    res.on('finish', onFinish);
    next();
  };
}
