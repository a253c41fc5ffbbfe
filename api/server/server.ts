/**
 * The API process: `npm run api` (and a child of `npm start`). Builds the dependencies,
 * listens on API_PORT, and on SIGTERM stops accepting, lets requests in flight finish,
 * then closes its connections in order.
 */
import type { Server } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { loadConfig, type Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { createMetricsRegistry } from '../../shared/metrics/metrics-registry.ts';
import { confineToSide } from '../../shared/cpu-affinity.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { createRedis, servingRedisConnection } from '../../shared/redis.ts';
import { createApiKeyCache } from './api-key-cache.ts';
import { createApp, type ApiDeps } from './app.ts';
import { createExpressServer } from './http-server.ts';
import { answerRefusedRequests } from './refused-requests.ts';
import { createCursorCodec, cursorSecret } from '../recommend/cursor.ts';
import { createOnDemandLists } from '../recommend/on-demand-lists.ts';
import { createPipelineProducer } from '../auth/pipeline-producer.ts';
import { createServedLists } from '../recommend/served-lists.ts';
import { createRateLimiter } from './rate-limit.ts';
import { createTagService } from '../tag/tag-service.ts';
import { createSignatureClient } from '../../shared/siwe/signature-client.ts';
import { createAddressTokenVerifier } from '../auth/address-token.ts';
import { createNonceStore } from '../auth/siwe-nonces.ts';
import { createRegistrationClaims } from '../auth/registration-claims.ts';
import { loadSigningKeys } from '../auth/signing-keys.ts';

export interface RunningApi {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Builds every dependency of the app from config; `close` releases them. */
export async function createApiDeps(config: Config, logger: Logger): Promise<ApiDeps & { close(): Promise<void> }> {
  // Requests must not hang on a stalled ClickHouse: a short deadline, counting the wait for
  // one of the client's 10 connections, turns it into a 503.
  const ch = createClickHouse(config, { deadlineMs: config.API_CLICKHOUSE_TIMEOUT_MS });
  // No auto-pipelining: each command leaves when it is issued, so Redis works on the first
  // requests of an event-loop turn while the API still handles the rest. Held back for one
  // write per turn, the API and Redis took turns idling (bench:api, 2026-11-25, in
  // docs/benchmarks.md's git history: 0.43-0.45 of bare with it, 0.48-0.53 without).
  const redis = createRedis({ ...servingRedisConnection(config, 'producer'), maxRetriesPerRequest: 1, commandTimeout: 2_000, enableAutoPipelining: false });
  // Connection errors surface in the requests that need Redis (as 503); one log line per
  // outage is enough, not one per reconnect attempt.
  let redisDown = false;
  redis.on('error', (error) => {
    if (!redisDown) logger.error({ err: error.message }, 'redis unreachable');
    redisDown = true;
  });
  redis.on('ready', () => {
    if (redisDown) logger.info('redis reachable again');
    redisDown = false;
  });
  // Until Redis is ready, rate limits would fall back to per-process counting.
  await once(redis, 'ready');
  const keys = await loadSigningKeys(config);
  const pipeline = createPipelineProducer(config, ['profiles', 'invites']);
  const served = createServedLists(redis, config);
  const onDemand = createOnDemandLists(config, served);
  const signatureClient = createSignatureClient(config);
  const tags = createTagService(config, redis, signatureClient);
  return {
    config,
    logger,
    ch,
    redis,
    keys,
    pipeline,
    served,
    onDemand,
    apiKeys: createApiKeyCache(ch, { ttlSeconds: config.APIKEY_CACHE_SECONDS }),
    rateLimiter: createRateLimiter(redis, {
      defaultPerMinute: config.RATE_LIMIT_PER_MINUTE,
      keyPrefix: `${config.QUEUE_PREFIX}:ratelimit`,
      warn: (message) => logger.warn(message),
    }),
    nonces: createNonceStore(redis, config.SIWE_NONCE_TTL_SECONDS, `${config.QUEUE_PREFIX}:siwe-nonce`),
    // An hour: a registration queued behind a long ingest still lands before its claim ends.
    registrations: createRegistrationClaims(redis, 3_600, `${config.QUEUE_PREFIX}:registration`),
    addressTokens: createAddressTokenVerifier(keys, config),
    cursors: createCursorCodec(cursorSecret(config)),
    signatureClient,
    tags,
    metrics: createMetricsRegistry(),
    readiness: { draining: false },
    async close() {
      await tags.close();
      await Promise.all([pipeline.close(), onDemand.close()]);
      redis.disconnect();
      await ch.close();
    },
  };
}

export async function startApi(config: Config, logger: Logger, port = config.API_PORT): Promise<RunningApi> {
  const deps = await createApiDeps(config, logger);
  const server = createExpressServer(createApp(deps));
  answerRefusedRequests(server, logger);
  server.listen(port, '0.0.0.0');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  logger.info({ port: actualPort }, 'api listening');
  return {
    server,
    port: actualPort,
    /** What SIGTERM runs: not ready, (drain), stop accepting, finish in-flight requests, close connections. */
    async close() {
      deps.readiness.draining = true;
      if (config.API_DRAIN_SECONDS > 0) {
        logger.info({ seconds: config.API_DRAIN_SECONDS }, 'not ready any more; still serving while load balancers notice');
        await sleep(config.API_DRAIN_SECONDS * 1000);
      }
      await stopAccepting(server);
      await deps.close();
    },
  };
}

/**
 * Stops accepting connections and resolves once every request in flight has been answered.
 * Keep-alive sockets would hold close() open: idle ones are closed now, and busy ones as
 * soon as their request is done.
 */
function stopAccepting(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Entry point: `npm run api` (node with the API's V8 flags, pipeline/cli/start.command.ts API_NODE_FLAGS). */
export async function main(): Promise<void> {
  confineToSide('api', loadConfig().INGEST_CPUS);
  const context = await openProcessContext({ name: 'api' });
  context.shutdown.exitOnSignals();
  const api = await startApi(context.config, context.logger);
  context.shutdown.add('api', () => api.close());
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
