/**
 * The workers process's small HTTP server (WORKERS_HTTP_PORT), for Prometheus and for
 * orchestrators:
 *
 *   GET /metrics   job, row and chain metrics of this process, plus queue depths and the
 *                  age of the newest ready snapshot, read at scrape time (METRICS_TOKEN)
 *   GET /healthz   the process answers
 *   GET /readyz    every worker is running and ClickHouse answers; 503 from SIGTERM on
 *
 * No express: three fixed GET paths need no router.
 */
import { createServer, type Server } from 'node:http';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import { metricsHandler } from '../shared/metrics/metrics-endpoint.ts';
import { registerQueueDepth } from './metrics/queue-depth.ts';
import { registerSnapshotAge } from './metrics/snapshot-age.ts';
import { registerReplicationLag } from './metrics/replication-lag.ts';
import { openPipelineQueues } from './pipeline-queues.ts';
import type { RunningWorkers } from './workers.ts';

export interface WorkersHttpServer {
  port: number;
  /** /readyz answers 503 from now on: the first step of a shutdown. */
  markDraining(): void;
  close(): Promise<void>;
}

export async function serveWorkersHttp(config: Config, logger: Logger, running: RunningWorkers): Promise<WorkersHttpServer> {
  const { registry } = running.metrics;
  const queues = openPipelineQueues(config);
  const ch = createClickHouse(config, { requestTimeoutMs: 10_000 });
  registerQueueDepth(registry, queues.queues);
  registerSnapshotAge(registry, ch);
  registerReplicationLag(registry, ch);
  const serveMetrics = metricsHandler(registry, config.METRICS_TOKEN);
  let draining = false;

  const isReady = async () => !draining && running.workers.every((w) => w.isRunning()) && (await ch.ping().catch(() => false));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      void serveMetrics(req, res);
    } else if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}\n');
    } else if (path === '/readyz') {
      void isReady().then((ready) => {
        res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' });
        res.end(ready ? '{"status":"ready"}\n' : `{"status":"${draining ? 'shutting down' : 'not ready'}"}\n`);
      });
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found: /metrics, /healthz, /readyz\n');
    }
  });
  server.listen(config.WORKERS_HTTP_PORT, '0.0.0.0');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.WORKERS_HTTP_PORT;
  logger.info({ port }, 'workers http server listening (/metrics, /healthz, /readyz)');

  return {
    port,
    markDraining() {
      draining = true;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await queues.close();
      await ch.close();
    },
  };
}
