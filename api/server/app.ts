/**
 * The HTTP API: routes, the ApiKey and token checks in front of them, and the envelope
 * around every answer. Dependencies come in; nothing here connects on import.
 */
import express, { type Express } from 'express';
import type { RedisClient } from '../../shared/redis.ts';
import swaggerUi from 'swagger-ui-express';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { metricsHandler } from '../../shared/metrics/metrics-endpoint.ts';
import type { Registry } from '../../shared/metrics/metrics-registry.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import type { CursorCodec } from '../recommend/cursor.ts';
import { accessLog } from './middleware/access-log.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { cors } from './middleware/cors.ts';
import { errorHandler, notFound, onlyMethods } from './middleware/errors.ts';
import { requestId } from './middleware/request-id.ts';
import { requireUnifiedToken } from '../auth/unified-auth.ts';
import { ENDPOINTS, type Guards } from '../common/endpoints.ts';
import { openApiDocument } from './openapi.ts';
import type { OnDemandLists } from '../recommend/on-demand-lists.ts';
import type { PipelineProducer } from '../auth/pipeline-producer.ts';
import type { ServedLists } from '../recommend/served-lists.ts';
import type { RateLimiter } from './rate-limit.ts';
import { authRoutes } from '../auth/auth.ts';
import { healthRoutes, type Readiness } from './health.ts';
import { createRequestMetrics } from './request-metrics.ts';
import { recommendRoute } from '../recommend/recommend.ts';
import { sbtListRoute } from '../sbt/sbt-list.ts';
import { tagRoute } from '../tag/tag.ts';
import type { TagService } from '../tag/tag-service.ts';
import type { AddressTokenVerifier } from '../auth/address-token.ts';
import type { NonceStore } from '../auth/siwe-nonces.ts';
import type { RegistrationClaims } from '../auth/registration-claims.ts';
import type { SignatureVerifierClient } from '../../shared/siwe/siwe-message-verification.ts';
import type { SigningKeys } from '../auth/signing-keys.ts';

export interface ApiDeps {
  config: Config;
  logger: Logger;
  ch: ClickHouse;
  redis: RedisClient;
  apiKeys: ApiKeyCache;
  rateLimiter: RateLimiter;
  keys: SigningKeys;
  nonces: NonceStore;
  registrations: RegistrationClaims;
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

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(accessLog(deps.logger, createRequestMetrics(deps.metrics, methodsByPath().keys())));
  app.use(cors);

  // The API's endpoints first, on the app's own router: the hot paths meet no other route
  // and no nested router on their way.
  const before = guards(deps);
  recommendRoute(deps, before, app.router);
  sbtListRoute(deps, before, app.router);
  tagRoute(deps, before, app.router);
  authRoutes(deps, before, app.router);

  app.use(healthRoutes(deps));
  app.get('/metrics', metricsHandler(deps.metrics, deps.config.METRICS_TOKEN));
  const document = openApiDocument();
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  // The reference is pages to read: other methods get the 405 envelope, not the page.
  app.use('/docs', onlyMethods(['GET', 'HEAD']), swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'soulgraph API' }));
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(deps.keys.publicJwks());
  });

  app.use(notFound(methodsByPath()));
  app.use(errorHandler(deps.logger));
  return app;
}

function guards(deps: ApiDeps): Guards {
  const jsonBody = express.json({ limit: '16kb', type: () => true });
  const unifiedToken = requireUnifiedToken(deps.keys, deps.config);
  return (name) => {
    const method = ENDPOINTS.find(([, , endpoint]) => endpoint === name)![0];
    return [
      requireApiKey(deps.apiKeys, deps.rateLimiter, name),
      ...(name === 'recommend' ? [unifiedToken] : []),
      ...(method === 'post' ? [jsonBody] : []),
    ];
  };
}

/** Paths served without an ApiKey, all GET. */
const OPEN_PATHS = ['/healthz', '/readyz', '/.well-known/jwks.json', '/api/v1/openapi.json', '/metrics'];

function methodsByPath(): Map<string, string[]> {
  const methods = new Map<string, string[]>(OPEN_PATHS.map((path) => [path, ['GET']]));
  for (const [method, path] of ENDPOINTS) methods.set(path, [...(methods.get(path) ?? []), method.toUpperCase()]);
  return methods;
}
