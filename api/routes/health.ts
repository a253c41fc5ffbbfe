/** /healthz: the process answers. /readyz: and it can reach ClickHouse and Redis. */
import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { ApiError, success } from '../envelope.ts';

export function healthRoutes(deps: { ch: ClickHouse; redis: Redis }): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      res.json(success({ status: 'ok' }));
    })
    .get('/readyz', async (_req, res) => {
      const [clickhouse, redis] = await Promise.all([
        deps.ch.ping().catch(() => false),
        deps.redis.ping().then((r) => r === 'PONG').catch(() => false),
      ]);
      if (!clickhouse || !redis) {
        throw new ApiError('serviceUnavailable', `service unavailable: ${[!clickhouse && 'ClickHouse', !redis && 'Redis'].filter(Boolean).join(' and ')} unreachable`);
      }
      res.json(success({ status: 'ready' }));
    });
}
