/**
 * The admin server (ADMIN_PORT), run by the scheduler process: the one pipeline process
 * that runs as a single replica, so the dashboard has one address however many workers
 * run.
 *
 *   /admin/queues   the queue dashboard, behind the admin credential (admin-auth.ts)
 *   /healthz        the process answers (docker-compose's healthcheck)
 */
import type { Server } from 'node:http';
import type { Queue } from 'bullmq';
import express from 'express';
import { CHAIN_QUEUE } from '../../shared/queues.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { openPipelineQueues } from '../pipeline-queues.ts';
import { requireAdmin, sameOriginChanges } from './admin-auth.ts';
import { queueDashboard } from './queue-dashboard.ts';

export const DASHBOARD_PATH = '/admin/queues';

/** The chain queue only where CHAINS names a chain: elsewhere nothing serves it, and "No workers" would only alarm. */
function shownQueues(config: Config, queues: readonly Queue[]): Queue[] {
  return queues.filter((queue) => queue.name !== CHAIN_QUEUE || config.CHAINS.length > 0);
}

export interface AdminServer {
  port: number;
  close(): Promise<void>;
}

export async function startAdminServer(config: Config, logger: Logger, port = config.ADMIN_PORT): Promise<AdminServer> {
  const queues = openPipelineQueues(config);
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(DASHBOARD_PATH, requireAdmin(config), sameOriginChanges, queueDashboard(shownQueues(config, queues.queues), DASHBOARD_PATH));
  app.use((_req, res) => {
    res.status(404).type('text/plain').send(`not found: the queue dashboard is at ${DASHBOARD_PATH}\n`);
  });

  const server: Server = app.listen(port, '0.0.0.0');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  logger.info(
    { port: actualPort, dashboard: config.ADMIN_PASSWORD ? 'open with the admin credential' : 'closed (ADMIN_PASSWORD unset)' },
    `admin server listening (${DASHBOARD_PATH}, /healthz)`,
  );
  return {
    port: actualPort,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await queues.close();
    },
  };
}
