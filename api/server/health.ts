/**
 * /healthz: the process answers. /readyz: and it can reach ClickHouse and Redis, and is
 * not shutting down: on SIGTERM readiness turns false first (api/server/server.ts), so a load
 * balancer stops sending requests before the server stops accepting them.
 */
import { Router } from 'express';
import type { RedisClient } from '../../shared/redis.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { ApiError, sendSuccess } from '../common/envelope.ts';

/**
 * A dependency that has not answered a ping within this is not ready: a load balancer's
 * probe gets its 503 at once rather than after the client's own timeout (a stalled server
 * keeps the connection open and never answers).
 */
const PROBE_MS = 1_000;

/** Set by the shutdown; read by /readyz. */
export interface Readiness {
  draining: boolean;
}

export function healthRoutes(deps: { ch: ClickHouse; redis: RedisClient; readiness: Readiness }): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      sendSuccess(res, { status: 'ok' });
    })
    .get('/readyz', async (_req, res) => {
      if (deps.readiness.draining) throw new ApiError('serviceUnavailable', 'service unavailable: shutting down');
      const [clickhouse, redis] = await Promise.all([
        answersWithin(PROBE_MS, deps.ch.ping()),
        answersWithin(PROBE_MS, deps.redis.ping().then((r) => r === 'PONG')),
      ]);
      if (!clickhouse || !redis) {
        throw new ApiError('serviceUnavailable', `service unavailable: ${[!clickhouse && 'ClickHouse', !redis && 'Redis'].filter(Boolean).join(' and ')} unreachable`);
      }
      sendSuccess(res, { status: 'ready' });
    });
}

/** True if the probe resolves true within `ms`; false if it fails, says no, or takes longer. */
async function answersWithin(ms: number, probe: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([probe.catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
