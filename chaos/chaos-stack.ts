/**
 * The stack the faults are done to: a private ClickHouse and Redis in a throwaway folder,
 * started by the local stack as `npm start` starts them (supervised: a server killed with
 * -9 is started again on the same port and data), and one database and queue prefix per
 * scenario so that no scenario counts another's rows. The servers' current pids come from
 * the stack's state file, which the supervisor rewrites after each restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { parseConfig, type Config } from '../shared/config.ts';
import { pingClickHouse } from '../shared/local-stack/clickhouse-server.ts';
import { ensureLocalStack, localStackState, type LocalStack } from '../shared/local-stack/local-stack.ts';
import { pingRedis } from '../shared/local-stack/redis-server.ts';
import { Shutdown } from '../shared/shutdown.ts';

export type ServerName = 'clickhouse' | 'redis';

export interface ScenarioEnvironment {
  /** Settings for child processes (and parseConfig). */
  env: Record<string, string>;
  config: Config;
}

export interface ChaosStack {
  work: string;
  stack: LocalStack;
  shutdown: Shutdown;
  /** What the supervisor said (restarts), for the report. */
  stackLog: string[];
  /** A database and queue prefix of the scenario's own, migrated. */
  scenarioEnvironment(name: string, overrides?: Record<string, string>): Promise<ScenarioEnvironment>;
  pidOf(server: ServerName): Promise<number>;
  /**
   * kill -9 of the server; resolves once the supervisor has it answering again, with the
   * milliseconds that took (the outage clients saw).
   */
  killAndAwaitRestart(server: ServerName, timeoutMs?: number): Promise<number>;
  /** SIGSTOP for `ms`, then SIGCONT; resolves with the time of the SIGCONT. */
  stall(server: ServerName, ms: number): Promise<number>;
}

export async function startChaosStack(): Promise<ChaosStack> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-chaos-'));
  const stackLog: string[] = [];
  // The state file is what records a restarted server's new pid.
  const stack = await ensureLocalStack(parseConfig({}), { dataDir: work, reuse: false, stateFile: true, log: (line) => stackLog.push(line) });
  const shutdown = new Shutdown((line) => console.error(line));
  shutdown.add('work folder', () => rm(work, { recursive: true, force: true }));
  shutdown.add('local stack', () => stack.stop());
  shutdown.exitOnSignals(130);

  const urls: Record<ServerName, string> = { clickhouse: stack.clickhouseUrl, redis: stack.redisUrl };
  const pings: Record<ServerName, (url: string) => Promise<boolean>> = { clickhouse: pingClickHouse, redis: pingRedis };

  const pidOf = async (server: ServerName) => {
    const pid = (await localStackState(work))?.[server]?.pid;
    if (!pid) throw new Error(`no ${server} pid in ${work}/stack.json`);
    return pid;
  };

  return {
    work,
    stack,
    shutdown,
    stackLog,
    async scenarioEnvironment(name, overrides = {}) {
      const id = name.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
      const env: Record<string, string> = {
        CLICKHOUSE_URL: stack.clickhouseUrl,
        REDIS_URL: stack.redisUrl,
        CLICKHOUSE_DATABASE: `chaos_${id}`,
        QUEUE_PREFIX: `chaos-${id}`,
        LOG_LEVEL: 'warn',
        // Several workers processes at once: each serves its /metrics on any free port.
        WORKERS_HTTP_PORT: '0',
        ADMIN_PORT: '0',
        ...overrides,
      };
      const config = parseConfig(env);
      await migrate(config);
      return { env, config };
    },
    pidOf,
    async killAndAwaitRestart(server, timeoutMs = 120_000) {
      const pid = await pidOf(server);
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      const deadline = killedAt + timeoutMs;
      for (;;) {
        const current = (await localStackState(work))?.[server]?.pid;
        if (current && current !== pid && (await pings[server](urls[server]))) return Date.now() - killedAt;
        if (Date.now() > deadline) throw new Error(`${server} was not started again within ${timeoutMs / 1000} s of kill -9`);
        await sleep(100);
      }
    },
    async stall(server, ms) {
      const pid = await pidOf(server);
      process.kill(pid, 'SIGSTOP');
      try {
        await sleep(ms);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      return Date.now();
    },
  };
}
