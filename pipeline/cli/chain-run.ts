/** What `soulgraph chain backfill` and `soulgraph chain follow` do (chain.command.ts declares them). */
import { Redis } from 'ioredis';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { redisConnection } from '../../shared/redis.ts';
import { createChainCaches } from '../chain/block-range.ts';
import { chainWorkerCount, runBackfill } from '../chain/backfill-run.ts';
import { ChainMismatchError, chainSource, UnknownChainError } from '../chain/chain-source.ts';
import { followChain } from '../chain/follow.ts';
import { startWorkers } from '../workers.ts';
import { createProgressDisplay } from './progress-display.ts';
import { UsageError } from './usage-error.ts';

function sourceOrUsage(config: Parameters<typeof chainSource>[0], chainId: number) {
  try {
    return chainSource(config, chainId);
  } catch (error) {
    if (error instanceof UnknownChainError) throw new UsageError(error.message);
    throw error;
  }
}

const say = (line: string) => process.stderr.write(`${line}\n`);

export async function backfill(chainId: number, from: number, to: number, workers: string): Promise<void> {
  const context = await openProcessContext({ name: 'chain-backfill', say });
  const { config } = context;
  context.shutdown.exitOnSignals(130);
  try {
    const source = sourceOrUsage(config, chainId);
    const inProcess = workers === 'auto' ? (await chainWorkerCount(config)) === 0 : workers === 'yes';
    if (inProcess) {
      say('no worker is serving the chain queue: running one in this process (start `soulgraph workers` to run them separately)');
      const running = await startWorkers(config, context.logger, { kinds: [], maintenance: false, materialize: false, chain: true });
      context.shutdown.add('in-process workers', () => running.close());
    }
    const display = createProgressDisplay(`${source.name} ${from}-${to}`, '{done}/{total} blocks | {rate} blocks/s | {logs} logs | {behind} blocks behind head');
    const started = Date.now();
    const summary = await runBackfill(config, source, from, to, (p) =>
      display.update(p.blocksDone, p.totalBlocks, {
        done: p.blocksDone,
        total: p.totalBlocks,
        rate: Math.round(p.blocksDone / Math.max(0.001, (Date.now() - started) / 1000)),
        logs: p.logs,
        behind: Math.max(0, p.head - p.highestDone),
      }),
    );
    display.stop();
    const seconds = summary.elapsedMs / 1000;
    const lines = [
      `${source.name} (chain ${chainId}) blocks ${from}-${to}: ${summary.blocksDone} blocks in ${summary.jobs} jobs, ${summary.transactions} transactions, ${summary.logs} logs, ${seconds.toFixed(1)} s (${Math.round(summary.blocksDone / Math.max(seconds, 0.001))} blocks/s); head ${summary.head}`,
      ...summary.failed.map((f) => `  FAILED ${f.jobId}: ${f.reason}`),
    ];
    if (summary.failed.length > 0) lines.push('  retry with: soulgraph retry --queue chain --all (or re-run this backfill: done ranges are skipped)');
    process.stdout.write(`${lines.join('\n')}\n`);
    if (summary.failed.length > 0) process.exitCode = 1;
  } finally {
    await context.shutdown.run();
  }
}

export async function follow(chainId: number, from: number | undefined, pollMs: number): Promise<void> {
  const context = await openProcessContext({ name: 'chain-follow', say });
  const { config, logger } = context;
  const source = sourceOrUsage(config, chainId);
  const ch = createClickHouse(config);
  // Worker options: commands wait for the connection instead of failing while it opens.
  const redis = new Redis(redisConnection(config, 'worker'));
  context.shutdown.add('connections', async () => {
    redis.disconnect();
    await ch.close();
  });
  let stopping = false;
  context.shutdown.add('follow loop', () => {
    stopping = true;
  });
  context.shutdown.exitOnSignals(130);
  const deps = { ch, config, logger, redis, caches: createChainCaches(ch, config, logger) };
  const display = createProgressDisplay(`${source.name} follow`, 'block {block} | {rate} blocks/s | {behind} blocks behind head ({confirmations} confirmations)');
  const started = Date.now();
  let blocks = 0;
  say(`following ${source.name} (chain ${chainId}) at head - ${source.confirmations}; Ctrl-C stops`);
  while (!stopping) {
    const result = await followChain(deps, source, {
      jobId: `cli-follow-${process.pid}`,
      ...(from !== undefined ? { fromBlock: from } : {}),
      budgetMs: 30_000,
      onRange: (p) => {
        blocks += p.blocks;
        display.update(p.to, p.head, {
          block: p.to,
          rate: Math.round(blocks / Math.max(0.001, (Date.now() - started) / 1000)),
          behind: p.head - p.to,
          confirmations: source.confirmations,
        });
      },
    }).catch((error: Error) => {
      if (error instanceof ChainMismatchError) throw new UsageError(error.message);
      // An RPC or ClickHouse outage: say so and try again; the checkpoint keeps the place.
      say(`follow step failed, retrying: ${error.message.split('\n')[0]}`);
      return undefined;
    });
    if (!result) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(pollMs, 5_000)));
      continue;
    }
    if (result.skipped) say(`another follower holds chain ${chainId}; waiting`);
    if (result.rolledBack) say(`reorg: rolled back ${result.rolledBack} blocks`);
    if (result.skipped || result.blocks === 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  display.stop();
}
