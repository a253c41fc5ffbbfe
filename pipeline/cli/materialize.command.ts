/**
 * `soulgraph materialize`: runs the nightly materialization now and follows it bucket by
 * bucket. When no worker serves the materialize queues, it runs them in this process.
 */
import { Command, Option } from 'commander';
import { Queue } from 'bullmq';
import type { Config } from '../../shared/config.ts';
import { MATERIALIZE_QUEUE } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { bucketsDone, enqueueRun, type RunView, watchRun } from '../materialize/run/run-watch.ts';
import { startWorkers } from '../workers.ts';
import { createProgressDisplay } from './progress-display.ts';

export function materializeCommand(): Command {
  return new Command('materialize')
    .description('Compute a new snapshot of recommendations and tags now, showing progress per bucket')
    .addOption(
      new Option('--workers <when>', 'run the materialize workers in this process: auto = only if none serves the queue')
        .choices(['auto', 'yes', 'no'])
        .default('auto'),
    )
    .addHelpText('after', '\nThe nightly run is the scheduler entry "nightly-materialize" (MATERIALIZE_CRON, UTC).')
    .action(async (options: { workers: 'auto' | 'yes' | 'no' }) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'materialize', say });
      const { config } = context;
      context.shutdown.exitOnSignals(130);
      try {
        const inProcess = options.workers === 'auto' ? (await runWorkerCount(config)) === 0 : options.workers === 'yes';
        if (inProcess) {
          say('no worker is serving the materialize queue: running one in this process (start `soulgraph workers` to run them separately)');
          const running = await startWorkers(config, context.logger, { kinds: [], maintenance: false, materialize: true });
          context.shutdown.add('in-process workers', () => running.close());
        }
        const runId = await enqueueRun(config, 'cli');
        say(`run ${runId} queued`);
        const view = await followRun(config, runId);
        process.stdout.write(`${summaryOf(view)}\n`);
        if (view.state === 'failed') process.exitCode = 1;
      } finally {
        await context.shutdown.run();
      }
    });
}

async function runWorkerCount(config: Config): Promise<number> {
  const queue = new Queue(MATERIALIZE_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    return await queue.getWorkersCount();
  } finally {
    await queue.close();
  }
}

/** A bar over buckets, and one line per bucket as it finishes. */
async function followRun(config: Config, runId: string): Promise<RunView> {
  const display = createProgressDisplay('buckets', '{done}/{total} done | running: {running} | {phase}');
  const reported = new Set<number>();
  let lastPhase = '';
  const view = await watchRun(config, runId, (v) => {
    const phase = v.state === 'load' ? 'loading the world' : v.state === 'fit' ? 'fitting the ranking model' : v.state;
    if ((v.state === 'load' || v.state === 'fit') && phase !== lastPhase) display.log(phase);
    lastPhase = phase;
    for (const b of v.buckets) {
      if (b.state === 'done' && b.result && !reported.has(b.bucket)) {
        reported.add(b.bucket);
        display.log(`bucket ${b.bucket + 1}/${v.buckets.length}: ${b.result.profiles} profiles, ${b.result.rows} rows, ${b.seconds?.toFixed(1)} s`);
      }
    }
    if (v.buckets.length > 0) {
      const done = bucketsDone(v);
      const running = v.buckets.filter((b) => b.state === 'running').map((b) => `#${b.bucket + 1} ${Math.round(b.seconds ?? 0)}s`);
      display.update(done, v.buckets.length, { done, total: v.buckets.length, running: running.join(', ') || '-', phase });
    }
  });
  display.stop();
  return view;
}

function summaryOf(view: RunView): string {
  if (view.state === 'failed') return `materialize: snapshot ${view.snapshotId ?? '?'} FAILED: ${view.error ?? 'unknown reason'} (the previous snapshot keeps serving)`;
  const r = view.result!;
  const dropped = r.droppedSnapshots.length ? `; dropped old snapshots ${r.droppedSnapshots.join(', ')}` : '';
  return `materialize: snapshot ${r.snapshotId} ready: ${r.profiles} profiles, ${r.rows} recommendations in ${r.buckets} bucket${r.buckets === 1 ? '' : 's'}${dropped}`;
}
