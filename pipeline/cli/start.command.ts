/**
 * `soulgraph start` (what `npm start` runs): the whole service on one machine. Brings up
 * the local stack, migrates, starts the workers and the scheduler as child processes,
 * ingests a demo world when the database is empty, prints what is there and what to try,
 * then runs until Ctrl-C and stops everything in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../shared/config.ts';
import { demoUsers } from '../generate/demo-users.ts';
import { demoUsersAllowed, demoWorldDir, ingestDemoWorld } from '../demo-world.ts';
import { bucketsDone, enqueueRun, watchRun } from '../materialize/run/run-watch.ts';
import { openProcessContext, type ProcessContext } from '../../shared/process/process-context.ts';
import { entryPointArgs, SOULGRAPH_BIN } from '../../shared/process/entry-points.ts';
import { readNetworkFile, generateCustodyKeys, shareFileName, NETWORK_FILE } from '../../shared/custody/key-files.ts';
import { CUSTODIAN_SERVER, custodyKeyDir, DEFAULT_NODES, DEFAULT_THRESHOLD } from './custodian.command.ts';
import { createProgressDisplay, type ProgressDisplay } from './progress-display.ts';
import { demoWalletsSummary } from './demo.command.ts';
import { tableReport } from './status.command.ts';

/** Started by path, not imported: the pipeline never depends on the API's code. */
const API_SERVER = 'api/server/server.ts';

/**
 * V8 flags of the API process, on its command line as in package.json's `api` script and
 * docker-compose.yml (docs/operations.md: its old generation grows to three times what
 * survives a full collection, for fewer full-heap pauses under load).
 */
export const API_NODE_FLAGS = ['--heap-growing-percent=200'];

export function startCommand(): Command {
  return new Command('start')
    .description('Run everything locally: stack, migrations, workers, scheduler, and a demo world on first start')
    .option('--no-demo', 'do not ingest a demo world into an empty database')
    .action(async (options: { demo: boolean }) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'start', say });
      context.shutdown.exitOnSignals();
      startChild(context, 'workers', [SOULGRAPH_BIN, 'workers']);
      startChild(context, 'scheduler', [SOULGRAPH_BIN, 'scheduler']);
      const custody = await startLocalCustodians(context, say);
      startChild(context, 'api', [...API_NODE_FLAGS, ...entryPointArgs(API_SERVER)], custody.apiEnv);
      if (options.demo && context.config.DEMO_PROFILES > 0 && (await isEmpty(context.config))) {
        await loadDemoWorld(context, say);
        await materializeFirstSnapshot(context, say);
      }
      const ch = createClickHouse(context.config);
      const [report, demo] = await Promise.all([tableReport(ch), hasDemoUsers(ch)]).finally(() => ch.close());
      const wallets = demo ? `${demoWalletsSummary(context.config)}\n` : '';
      process.stdout.write(`\n${report.join('\n')}\n\n${custody.summary}\n${wallets}${nextSteps(context.config)}\n`);
    });
}

/**
 * The children still running. If this process ends without its orderly shutdown (a second
 * Ctrl-C), one 'exit' listener takes them all along (one listener per child went past
 * Node's limit of ten and printed a MaxListenersExceededWarning).
 */
const children = new Set<ChildProcess>();

function killOnExit(child: ChildProcess): void {
  if (children.size === 0) process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** A child that dies on its own takes the whole service down: failing loudly beats running half a pipeline. */
function startChild(context: ProcessContext, name: string, nodeArgs: string[], env: Record<string, string> = {}): ChildProcess {
  const { config } = context;
  const child = spawn(process.execPath, nodeArgs, {
    env: {
      ...process.env,
      CLICKHOUSE_URL: config.CLICKHOUSE_URL,
      REDIS_URL: config.REDIS_URL,
      SERVING_REDIS_URL: config.SERVING_REDIS_URL,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let stopping = false;
  killOnExit(child);
  child.once('exit', (code, signal) => {
    // A terminal's Ctrl-C reaches every child at once: exits during the shutdown are expected.
    if (stopping || context.shutdown.started) return;
    process.stderr.write(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping\n`);
    void context.shutdown.run(`${name} died`).then(() => process.exit(1));
  });
  context.shutdown.add(name, async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  return child;
}

/**
 * The local custody network of the tag endpoint (docs/tags.md): keys made on first start
 * (5 custodians, threshold 3) in CUSTODIAN_KEY_DIR, one process per share. With
 * TAG_NETWORK_PUBLIC_KEY set (the Lit network's key, say), no local custodian runs.
 */
async function startLocalCustodians(context: ProcessContext, say: (line: string) => void): Promise<{ apiEnv: Record<string, string>; summary: string }> {
  const { config } = context;
  if (config.TAG_NETWORK_PUBLIC_KEY) return { apiEnv: {}, summary: 'tags: encrypted to TAG_NETWORK_PUBLIC_KEY; no local custodians started' };
  const dir = custodyKeyDir(config);
  const network = await readNetworkFile(dir).catch(async () => {
    say(`no custody keys in ${dir}: generating ${DEFAULT_THRESHOLD}-of-${DEFAULT_NODES} keys (${NETWORK_FILE} and one share file per custodian)`);
    return generateCustodyKeys(dir, DEFAULT_NODES, DEFAULT_THRESHOLD);
  });
  const urls = network.custodians.map(({ index }) => {
    const port = config.CUSTODIAN_PORT + index - 1;
    startChild(context, `custodian-${index}`, entryPointArgs(CUSTODIAN_SERVER), {
      CUSTODIAN_SHARE_FILE: path.join(dir, shareFileName(index)),
      CUSTODIAN_PORT: String(port),
    });
    return `http://127.0.0.1:${port}`;
  });
  return {
    apiEnv: { TAG_NETWORK_PUBLIC_KEY: network.publicKey },
    summary: `tags: ${network.nodes} custodians (any ${network.threshold} decrypt) at ${urls.join(', ')}; network key ${network.publicKey} (docs/sdk.md)`,
  };
}

/** Whether the database holds the demo users (a demo world loaded outside production). */
async function hasDemoUsers(ch: ClickHouse): Promise<boolean> {
  const ids = demoUsers().map((u) => u.profileId);
  const [row] = await ch.query(sql`SELECT count() AS n FROM profiles WHERE profile_id IN ${inList(ids)}`, z.object({ n: z.coerce.number() }));
  return (row?.n ?? 0) > 0;
}

async function isEmpty(config: Config): Promise<boolean> {
  const ch = createClickHouse(config);
  try {
    const [row] = await ch.query(sql`SELECT count() AS n FROM profiles`, z.object({ n: z.coerce.number() }));
    return (row?.n ?? 0) === 0;
  } finally {
    await ch.close();
  }
}

async function loadDemoWorld(context: ProcessContext, say: (line: string) => void): Promise<void> {
  const { config } = context;
  const users = demoUsersAllowed(config) ? ` and ${demoUsers().length} demo users` : '';
  say(`empty database: generating a demo world of ${config.DEMO_PROFILES} profiles${users} (seed ${config.DEMO_SEED}) in ${demoWorldDir(config)}`);
  let display: ProgressDisplay | undefined;
  let shown: string | undefined;
  await ingestDemoWorld(config, ({ kind, rowsDone, rows }) => {
    if (kind !== shown) {
      display?.stop();
      display = createProgressDisplay(kind.padEnd(15), '{done}/{rows} rows');
      shown = kind;
    }
    display!.update(rowsDone, rows, { done: rowsDone, rows });
  });
  display?.stop();
}

/** Recommendations right away, rather than after the first nightly run: the workers child computes them. */
async function materializeFirstSnapshot(context: ProcessContext, say: (line: string) => void): Promise<void> {
  say('computing the first snapshot of recommendations and tags (the nightly run: soulgraph materialize)');
  const display = createProgressDisplay('materialize'.padEnd(15), '{done}/{buckets} buckets');
  const view = await watchRun(context.config, await enqueueRun(context.config, 'start'), (v) => {
    if (v.buckets.length === 0) return; // not split into buckets yet: nothing to show a share of
    const done = bucketsDone(v);
    display.update(done, v.buckets.length, { done, buckets: v.buckets.length });
  });
  display.stop();
  if (view.state !== 'done') throw new Error(`first materialization ${view.state}: ${view.error ?? 'see the workers log'}`);
  const result = view.result!;
  say(`snapshot ${result.snapshotId} ready: ${result.rows} recommendations for ${result.profiles} profiles (table latest_recommendations)`);
}

function nextSteps(config: Config): string {
  return [
    `soulgraph is running: API on http://127.0.0.1:${config.API_PORT} (reference: /docs), workers and scheduler. Try, in another terminal:`,
    '  npx soulgraph demo                         a walk through the API as a demo user, ready to paste (docs/api.md: step by step)',
    '  npx soulgraph apikey create --name me --domain localhost   an ApiKey of your own',
    '  npx soulgraph status                       queue depths, failures, rows per table',
    '  npx soulgraph ingest transactions --format ethereum-etl ../shared/data/raphtory-eth/transactions_03300000_03399999_small.csv',
    `  curl '${config.CLICKHOUSE_URL}/?query=SELECT+count()+FROM+${config.CLICKHOUSE_DATABASE}.transactions+FINAL'`,
    `  (read-only analysts' account: user analyst, password analyst, on the same URL; docs/analysts.md)`,
    `  metrics: http://127.0.0.1:${config.API_PORT}/metrics and http://127.0.0.1:${config.WORKERS_HTTP_PORT}/metrics`,
    `  queue dashboard: http://127.0.0.1:${config.ADMIN_PORT}/admin/queues ${config.ADMIN_PASSWORD ? `(user ${config.ADMIN_USER})` : '(set ADMIN_PASSWORD to open it)'}`,
    'Ctrl-C stops everything.',
  ].join('\n');
}
