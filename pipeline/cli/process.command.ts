/**
 * `soulgraph workers` and `soulgraph scheduler`: the long-running pipeline processes,
 * each until SIGINT/SIGTERM, then an ordered shutdown.
 */
import { Command } from 'commander';
import { kindNames, isKindName, type KindName } from '../../shared/records/kinds.ts';
import { openProcessContext } from '../../shared/process-context.ts';
import { startScheduler } from '../scheduler.ts';
import { startWorkers } from '../workers.ts';

export function workersCommand(): Command {
  return new Command('workers')
    .description('Run the ingestion and housekeeping workers until SIGTERM')
    .option('--kinds <list>', `only these record kinds (comma-separated: ${kindNames.join(', ')})`)
    .action(async (options: { kinds?: string }) => {
      const kinds = parseKinds(options.kinds);
      const context = await openProcessContext({ name: 'workers' });
      context.shutdown.exitOnSignals();
      const running = await startWorkers(context.config, context.logger, kinds ? { kinds } : {});
      context.shutdown.add('workers', () => running.close());
    });
}

const RECONCILE_EVERY_MS = 10 * 60_000;

export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('Reconcile the declared job schedulers with BullMQ, then stay up until SIGTERM')
    .option('--once', 'reconcile and exit')
    .action(async (options: { once?: boolean }) => {
      const context = await openProcessContext({ name: 'scheduler' });
      await startScheduler(context.config, context.logger);
      if (options.once) {
        await context.shutdown.run();
        return;
      }
      context.shutdown.exitOnSignals();
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
