/**
 * GET /metrics in Prometheus text format, for the API and the workers. With METRICS_TOKEN
 * set, only a scraper sending `Authorization: Bearer <token>` gets an answer (Prometheus:
 * `authorization: { credentials: ... }` in the scrape config).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { matchesSecret } from '../secret-match.ts';

export function metricsHandler(registry: Registry, token: string): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const expected = token === '' ? undefined : `Bearer ${token}`;
  return async (req, res) => {
    if (expected !== undefined && !matchesSecret(req.headers.authorization, expected)) {
      res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer realm="metrics"' });
      res.end('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    let body: string;
    try {
      body = await registry.metrics();
    } catch (error) {
      // A collector asks Redis or ClickHouse and one is down: the scrape fails as a whole
      // (Prometheus records it as a failed scrape, which is worth an alert of its own).
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`collecting metrics failed: ${(error as Error).message}\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': registry.contentType });
    res.end(body);
  };
}
