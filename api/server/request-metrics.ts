/**
 * Request rate, latency and errors per endpoint and envelope code, as one Prometheus
 * histogram observed once per request:
 *
 *   soulgraph_http_request_duration_seconds{route, method, code}
 *
 * Its `_count` is the request rate and `code != "0"` the errors. Every label comes from a
 * bounded set, so no request can mint a new series: `route` is one of the app's paths
 * (never the raw URL; anything else is "/docs" or "unmatched"), `method` one of the HTTP
 * methods, `code` an envelope code from api/common/error-codes.ts or "none" (OpenAPI, /docs,
 * /metrics answer no envelope). The label objects are made once per combination and
 * reused, so observing allocates nothing of ours on the request path.
 */
import { Histogram, type Registry } from 'prom-client';
import { errorCodes } from '../common/error-codes.ts';

export interface RequestMetrics {
  observe(path: string, method: string, envelopeCode: unknown, seconds: number): void;
}

type Labels = { route: string; method: string; code: string };

/** Seconds: from a cached health check (~1 ms) to a slow ClickHouse query. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CODES = new Set<string>(Object.values(errorCodes).map((e) => e.code));

export function createRequestMetrics(registry: Registry, routes: Iterable<string>): RequestMetrics {
  const histogram = new Histogram({
    name: 'soulgraph_http_request_duration_seconds',
    help: 'API requests by route, method and envelope code: duration in seconds (_count is the request rate; code != "0" the errors)',
    labelNames: ['route', 'method', 'code'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const known = new Set(routes);
  /** route -> method -> code -> labels; grows to at most |routes| x |methods| x |codes| entries. */
  const labelCache = new Map<string, Map<string, Map<string, Labels>>>();

  const labelsFor = (route: string, method: string, code: string): Labels => {
    let byMethod = labelCache.get(route);
    if (!byMethod) labelCache.set(route, (byMethod = new Map()));
    let byCode = byMethod.get(method);
    if (!byCode) byMethod.set(method, (byCode = new Map()));
    let labels = byCode.get(code);
    if (!labels) byCode.set(code, (labels = { route, method, code }));
    return labels;
  };

  return {
    observe(path, method, envelopeCode, seconds) {
      const route = known.has(path) ? path : path.startsWith('/docs') ? '/docs' : 'unmatched';
      const code = typeof envelopeCode === 'string' && CODES.has(envelopeCode) ? envelopeCode : 'none';
      histogram.observe(labelsFor(route, METHODS.has(method) ? method : 'other', code), seconds);
    },
  };
}
