/**
 * /healthz: the process answers. /readyz: and it can reach ClickHouse and Redis, and is
 * not shutting down: on SIGTERM readiness turns false first (api/server/server.ts), so a load
 * balancer stops sending requests before the server stops accepting them.
 */
import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { ApiError, sendSuccess } from '../common/envelope.ts';

/** Set by the shutdown; read by /readyz. */
export interface Readiness {
  draining: boolean;
}

export function healthRoutes(deps: { ch: ClickHouse; redis: Redis; readiness: Readiness }): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      sendSuccess(res, { status: 'ok' });
    })
    .get('/readyz', async (_req, res) => {
      if (deps.readiness.draining) throw new ApiError('serviceUnavailable', 'service unavailable: shutting down');
      const [clickhouse, redis] = await Promise.all([
        deps.ch.ping().catch(() => false),
        deps.redis.ping().then((r) => r === 'PONG').catch(() => false),
      ]);
      if (!clickhouse || !redis) {
        throw new ApiError('serviceUnavailable', `service unavailable: ${[!clickhouse && 'ClickHouse', !redis && 'Redis'].filter(Boolean).join(' and ')} unreachable`);
      }
      sendSuccess(res, { status: 'ready' });
    });
}
