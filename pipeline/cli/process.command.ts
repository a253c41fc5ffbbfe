/**
 * `soulgraph workers` and `soulgraph scheduler`: the long-running pipeline processes,
 * each until SIGINT/SIGTERM, then an ordered shutdown.
 */
import { Command } from 'commander';
import { kindNames, isKindName, type KindName } from '../../shared/records/kinds.ts';
import { createMetricsRegistry } from '../../shared/metrics/metrics-registry.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { startAdminServer } from '../admin/admin-server.ts';
import { createPipelineMetrics } from '../metrics/pipeline-metrics.ts';
import { startScheduler } from '../scheduler.ts';
import { startWorkers } from '../workers.ts';
import { serveWorkersHttp } from '../workers-http-server.ts';

export function workersCommand(): Command {
  return new Command('workers')
    .description('Run the ingestion and housekeeping workers until SIGTERM')
    .option('--kinds <list>', `only these record kinds (comma-separated: ${kindNames.join(', ')})`)
    .action(async (options: { kinds?: string }) => {
      const kinds = parseKinds(options.kinds);
      const context = await openProcessContext({ name: 'workers', atWorkersNice: true });
      context.shutdown.exitOnSignals();
      const metrics = createPipelineMetrics(createMetricsRegistry());
      const running = await startWorkers(context.config, context.logger, { ...(kinds ? { kinds } : {}), metrics });
      // A port already taken must not leave workers running with no shutdown step to stop them.
      const http = await serveWorkersHttp(context.config, context.logger, running).catch(async (error: unknown) => {
        await running.close();
        throw error;
      });
      // Shutdown runs these newest first: not ready, then finish the jobs, then stop serving /metrics.
      context.shutdown.add('workers http server', () => http.close());
      context.shutdown.add('workers', () => running.close());
      context.shutdown.add('readiness', () => http.markDraining());
    });
}

const RECONCILE_EVERY_MS = 10 * 60_000;

export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('Reconcile the declared job schedulers with BullMQ, then serve the queue dashboard (ADMIN_PORT) until SIGTERM')
    .option('--once', 'reconcile and exit')
    .action(async (options: { once?: boolean }) => {
      const context = await openProcessContext({ name: 'scheduler' });
      await startScheduler(context.config, context.logger);
      if (options.once) {
        await context.shutdown.run();
        return;
      }
      context.shutdown.exitOnSignals();
      const admin = await startAdminServer(context.config, context.logger);
      context.shutdown.add('admin server', () => admin.close());
      // Reconciling again now and then repairs schedulers lost with a flushed Redis.
      const timer = setInterval(() => {
        startScheduler(context.config, context.logger).catch((error: Error) =>
          context.logger.error({ err: error.message }, 'reconciling job schedulers failed'),
        );
      }, RECONCILE_EVERY_MS);
      context.shutdown.add('reconcile timer', () => clearInterval(timer));
    });
}

function parseKinds(list: string | undefined): KindName[] | undefined {
  if (!list) return undefined;
  const kinds = list.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !isKindName(k));
  if (unknown.length > 0) throw new Error(`unknown kind ${unknown.join(', ')}; kinds are ${kindNames.join(', ')}`);
  return kinds as KindName[];
}
