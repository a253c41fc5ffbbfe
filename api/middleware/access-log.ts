/**
 * One structured log line per request: method, path, status, envelope code, duration,
 * the request id (echoed to the client as X-Request-Id) and the ApiKey's public id —
 * never the key, a token or a signature, and never the query string (it may carry `sig`).
 */
import type { RequestHandler } from 'express';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import type { Logger } from '../../shared/logger.ts';

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      res.locals.envelopeCode = (body as { code?: unknown } | null)?.code;
      return send(body);
    };
    res.on('finish', () => {
      const apiKey = res.locals.apiKey as ApiKeyRecord | undefined;
      const line = {
        requestId: res.locals.requestId as string,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        code: typeof res.locals.envelopeCode === 'string' ? res.locals.envelopeCode : undefined,
        ms: Math.round((performance.now() - started) * 10) / 10,
        apiKeyId: apiKey?.keyId,
      };
      if (res.statusCode >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}
