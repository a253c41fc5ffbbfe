/**
 * `soulgraph status`: what a data engineer checks first: queue depths, workers, recent
 * failures with their reasons, schedules, rows and rejects per table, and the local
 * stack's servers with their restarts.
 */
import { Queue } from 'bullmq';
import { Command } from 'commander';
import { z } from 'zod';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { replicationLagByNode } from '../../shared/clickhouse/replication-wait.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../shared/config.ts';
import { allQueueNames } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { recordKinds } from '../../shared/records/kinds.ts';
import { localStackState } from '../../shared/local-stack/local-stack.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { scheduleReport } from './schedules.command.ts';
import { formatTable } from './text-table.ts';

export function statusCommand(): Command {
  return new Command('status')
    .description('Show queue depths, workers, recent failures, schedules, and rows per table')
    .option('--failures <n>', 'recent failed jobs to show per queue', '3')
    .action(async (options: { failures: string }) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'status', say });
      try {
        const out: string[] = [];
        out.push(...(await queueReport(context.config, Number(options.failures) || 0)));
        out.push('', ...(await scheduleReport(context.config)));
        out.push(...(await stackReport(context.config)));
        const ch = createClickHouse(context.config);
        try {
          out.push(...(await clusterReport(ch)));
          out.push('', ...(await tableReport(ch)));
        } finally {
          await ch.close();
        }
        process.stdout.write(`${out.join('\n')}\n`);
      } finally {
        await context.shutdown.run();
      }
    });
}

/** The servers of this checkout's local stack (none when CLICKHOUSE_URL and REDIS_URL name others). */
async function stackReport(config: Config): Promise<string[]> {
  const state = await localStackState(config.DATA_DIR);
  if (!state) return [];
  const rows: string[][] = [['local server', 'url', 'pid', 'restarts', 'last restart']];
  for (const [name, record] of [
    ['clickhouse-server', state.clickhouse],
    ['redis-server (queues)', state.redis],
    ['redis-server (serving copy)', state.servingRedis],
  ] as const) {
    if (!record) continue;
    const last = record.lastRestart ? `${new Date(record.lastRestart.at).toISOString()} (${record.lastRestart.reason})` : '-';
    rows.push([name, record.url, String(record.pid), String(record.restarts ?? 0), last]);
  }
  return ['', ...formatTable(rows)];
}

async function queueReport(config: Config, failures: number): Promise<string[]> {
  const rows: string[][] = [['queue', 'waiting', 'active', 'delayed', 'failed', 'completed', 'workers']];
  const failed: string[] = [];
  for (const name of allQueueNames()) {
    const queue = new Queue(name, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
    try {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
      const workers = await queue.getWorkersCount();
      rows.push([name, String((c.waiting ?? 0) + (c.prioritized ?? 0)), ...['active', 'delayed', 'failed', 'completed'].map((k) => String(c[k] ?? 0)), String(workers)]);
      for (const job of failures > 0 ? await queue.getFailed(0, failures - 1) : []) {
        const when = job.finishedOn ? new Date(job.finishedOn).toISOString() : '?';
        failed.push(`  ${name} job ${job.id} at ${when} after ${job.attemptsMade} attempts: ${job.failedReason}`);
      }
    } finally {
      await queue.close();
    }
  }
  return [...formatTable(rows), '', failed.length > 0 ? 'Recent failures:' : 'No failed jobs.', ...failed];
}

/** On a cluster (CLICKHOUSE_CLUSTER): each node, whether it answers, and how far behind its replicas are. */
export async function clusterReport(ch: ClickHouse): Promise<string[]> {
  if (!ch.cluster) return [];
  const rows: string[][] = [['clickhouse node', 'shard', 'replica', 'replication log behind']];
  for (const node of await replicationLagByNode(ch)) {
    rows.push([node.address, node.shard, node.replica, node.behind === undefined ? 'unreachable' : String(node.behind)]);
  }
  return ['', `cluster ${ch.cluster}:`, ...formatTable(rows)];
}

const countRow = z.object({ rows: z.coerce.number() });
const rejectsRow = z.object({ kind: z.string(), rejects: z.coerce.number() });

export async function tableReport(ch: ClickHouse): Promise<string[]> {
  const rejects = new Map(
    (await ch.query(sql`SELECT kind, count() AS rejects FROM ingest_rejects FINAL GROUP BY kind`, rejectsRow)).map((r) => [
      r.kind,
      r.rejects,
    ]),
  );
  const rows: string[][] = [['kind', 'table', 'rows', 'rejects']];
  for (const kind of Object.values(recordKinds)) {
    const [count] = await ch.query(sql`SELECT count() AS rows FROM ${identifier(kind.table)} FINAL`, countRow);
    rows.push([kind.name, kind.table, String(count?.rows ?? 0), String(rejects.get(kind.name) ?? 0)]);
  }
  return formatTable(rows);
}
