/**
 * The HTTP API: routes, the ApiKey and token checks in front of them, and the envelope
 * around every answer. Dependencies come in; nothing here connects on import.
 */
import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import swaggerUi from 'swagger-ui-express';
import type { ClickHouse } from '../shared/clickhouse/client.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import { metricsHandler } from '../shared/metrics/metrics-endpoint.ts';
import type { Registry } from '../shared/metrics/metrics-registry.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import type { CursorCodec } from './cursor.ts';
import { accessLog, recordEnvelopeCodes } from './middleware/access-log.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { cors } from './middleware/cors.ts';
import { errorHandler, notFound } from './middleware/errors.ts';
import { requestId } from './middleware/request-id.ts';
import { requireUnifiedToken } from './middleware/unified-auth.ts';
import { openApiDocument } from './openapi.ts';
import type { OnDemandLists } from './on-demand-lists.ts';
import type { PipelineProducer } from './pipeline-producer.ts';
import type { ServedLists } from './served-lists.ts';
import type { RateLimiter } from './rate-limit.ts';
import { authRoutes } from './routes/auth.ts';
import { healthRoutes, type Readiness } from './routes/health.ts';
import { createRequestMetrics } from './request-metrics.ts';
import { recommendRoute } from './routes/recommend.ts';
import { sbtListRoute } from './routes/sbt-list.ts';
import { tagRoute } from './routes/tag.ts';
import type { TagService } from './tag-service.ts';
import type { AddressTokenVerifier } from './tokens/address-token.ts';
import type { NonceStore } from './tokens/siwe-nonces.ts';
import type { SignatureVerifierClient } from '../shared/siwe/siwe-message-verification.ts';
import type { SigningKeys } from './tokens/signing-keys.ts';

export interface ApiDeps {
  config: Config;
  logger: Logger;
  ch: ClickHouse;
  redis: Redis;
  apiKeys: ApiKeyCache;
  rateLimiter: RateLimiter;
  keys: SigningKeys;
  nonces: NonceStore;
  addressTokens: AddressTokenVerifier;
  cursors: CursorCodec;
  pipeline: PipelineProducer;
  served: ServedLists;
  onDemand: OnDemandLists;
  signatureClient?: SignatureVerifierClient | undefined;
  tags: TagService;
  /** This process's Prometheus registry, served at /metrics. */
  metrics: Registry;
  readiness: Readiness;
}

/** Each API endpoint with the name its rate limit is counted under. */
const ENDPOINTS = [
  ['get', '/api/v1/recommend', 'recommend'],
  ['post', '/api/v1/auth', 'auth'],
  ['get', '/api/v1/auth/nonce', 'auth-nonce'],
  ['post', '/api/v1/auth/address-token', 'auth-address-token'],
  ['get', '/api/v1/sbt/list', 'sbt-list'],
  ['get', '/api/v1/tag', 'tag'],
] as const;

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(accessLog(deps.logger, createRequestMetrics(deps.metrics, methodsByPath().keys())));
  recordEnvelopeCodes(app);
  app.use(cors);

  app.use(healthRoutes(deps));
  app.get('/metrics', metricsHandler(deps.metrics, deps.config.METRICS_TOKEN));
  const document = openApiDocument();
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'soulgraph API' }));
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(deps.keys.publicJwks());
  });

  for (const [method, path, name] of ENDPOINTS) {
    const guards: RequestHandler[] = [requireApiKey(deps.apiKeys, deps.rateLimiter, name)];
    if (name === 'recommend') guards.push(requireUnifiedToken(deps.keys, deps.config));
    app[method](path, ...guards);
  }
  app.use(express.json({ limit: '16kb', type: () => true }));
  app.use(recommendRoute(deps));
  app.use(authRoutes(deps));
  app.use(sbtListRoute(deps));
  app.use(tagRoute(deps));

  app.use(notFound(methodsByPath()));
  app.use(errorHandler(deps.logger));
  return app;
}

/** Paths served without an ApiKey, all GET. */
const OPEN_PATHS = ['/healthz', '/readyz', '/.well-known/jwks.json', '/api/v1/openapi.json', '/metrics'];

function methodsByPath(): Map<string, string[]> {
  const methods = new Map<string, string[]>(OPEN_PATHS.map((path) => [path, ['GET']]));
  for (const [method, path] of ENDPOINTS) methods.set(path, [...(methods.get(path) ?? []), method.toUpperCase()]);
  return methods;
}
