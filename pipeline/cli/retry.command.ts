/**
 * `soulgraph retry --queue <q> [--all | --job <id...>]`: puts failed jobs back on their
 * queue with all their attempts again. Failed jobs are kept (bounded by the queue's
 * removeOnFail) with their reason, so `soulgraph status` or the dashboard shows what to
 * fix first; a job whose payload can never pass fails again at once.
 */
import type { Job } from 'bullmq';
import { Queue } from 'bullmq';
import { Command } from 'commander';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { allQueueNames } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { UsageError } from './usage-error.ts';

export function retryCommand(): Command {
  return new Command('retry')
    .description('Re-run failed jobs of a queue: every one (--all) or the given ones (--job)')
    .requiredOption('--queue <name>', `queue: ${allQueueNames().join(', ')}`)
    .option('--all', 'retry every failed job of the queue')
    .option('--job <id...>', 'retry these failed jobs')
    .action(async (options: { queue: string; all?: boolean; job?: string[] }) => {
      if (!allQueueNames().includes(options.queue)) {
        throw new UsageError(`unknown queue "${options.queue}"; queues are ${allQueueNames().join(', ')}`);
      }
      if (options.all && options.job) throw new UsageError('give --all or --job, not both');
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'retry', say, migrate: false });
      const { config } = context;
      const queue = new Queue(options.queue, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
      try {
        const failed = await queue.getFailed(0, -1);
        const chosen = options.all ? failed : options.job ? pick(failed, options.job, options.queue) : undefined;
        if (!chosen) {
          throw new UsageError(
            failed.length === 0
              ? `${options.queue} has no failed jobs`
              : `${options.queue} has ${failed.length} failed jobs (newest first):\n${failed.slice(0, 20).map(describe).join('\n')}\n` +
                  'retry them with --all, or some with --job <id...>',
          );
        }
        for (const job of chosen) await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        process.stdout.write(`retried ${chosen.length} failed job${chosen.length === 1 ? '' : 's'} of ${options.queue}\n`);
      } finally {
        await queue.close();
        await context.shutdown.run();
      }
    });
}

function pick(failed: Job[], ids: string[], queueName: string): Job[] {
  const byId = new Map(failed.map((job) => [job.id, job]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new UsageError(`not a failed job of ${queueName}: ${missing.join(', ')}`);
  return ids.map((id) => byId.get(id)!);
}

function describe(job: Job): string {
  const when = job.finishedOn ? new Date(job.finishedOn).toISOString() : '?';
  return `  ${job.id}  ${when}  after ${job.attemptsMade} attempts: ${job.failedReason}`;
}
