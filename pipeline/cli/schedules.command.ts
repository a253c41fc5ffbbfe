/**
 * `soulgraph schedules`: every job scheduler, declared (pipeline/schedules.ts) and
 * registered in BullMQ, with its cron and next run. A declared one that is not registered
 * yet, or a registered one no longer declared, is marked: the scheduler process fixes
 * both when it (re)starts.
 */
import { Command } from 'commander';
import type { Config } from '../../shared/config.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { allQueueNames } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { listSchedules } from '../job-schedulers.ts';
import { declaredSchedules } from '../schedules.ts';
import { formatTable } from './text-table.ts';

export function schedulesCommand(): Command {
  return new Command('schedules')
    .description('List the job schedulers with their cron (UTC) and next run')
    .action(async () => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'schedules', say });
      try {
        process.stdout.write(`${(await scheduleReport(context.config)).join('\n')}\n`);
      } finally {
        await context.shutdown.run();
      }
    });
}

/** The schedulers as a table (also part of `soulgraph status`). */
export async function scheduleReport(config: Config): Promise<string[]> {
  const registered = await listSchedules(config, redisConnection(config, 'producer'), allQueueNames());
  const declared = declaredSchedules(config);
  const key = (queue: string, id: string) => `${queue}/${id}`;
  const declaredKeys = new Set(declared.map((d) => key(d.queue, d.id)));
  const registeredKeys = new Set(registered.map((s) => key(s.queue, s.id)));
  const rows = [
    ...registered.map((s) => [
      s.id,
      s.queue,
      s.cron,
      s.next?.toISOString() ?? '-',
      declaredKeys.has(key(s.queue, s.id)) ? 'registered' : 'not declared: removed when the scheduler starts',
    ]),
    ...declared
      .filter((d) => !registeredKeys.has(key(d.queue, d.id)))
      .map((d) => [d.id, d.queue, d.cron, '-', 'declared, not registered: start `soulgraph scheduler`']),
  ];
  if (rows.length === 0) return ['No job schedulers declared or registered.'];
  return formatTable([['schedule', 'queue', 'cron (UTC)', 'next run', 'state'], ...rows]);
}
