/**
 * What every pipeline process (CLI command, workers, scheduler) starts with: the config,
 * a ClickHouse and a Redis to talk to (the configured ones, or the local stack), the
 * migrated schema, a logger, and an ordered shutdown.
 */
import { loadConfig, type Config } from '../config.ts';
import { migrate } from '../clickhouse/migrate.ts';
import { configWithStack, ensureLocalStack } from '../local-stack/local-stack.ts';
import { lowerCpuPriority } from './cpu-priority.ts';
import { createLogger, type Logger } from '../logger.ts';
import { Shutdown } from '../shutdown.ts';

export interface ProcessContext {
  config: Config;
  logger: Logger;
  shutdown: Shutdown;
}

export interface OpenOptions {
  name: string;
  /** Apply pending migrations (every entry point does, so the schema is never behind). */
  migrate?: boolean;
  /** Progress lines for people (the CLI); processes log JSON instead. */
  say?: (line: string) => void;
  config?: Config;
  /**
   * Run at WORKERS_NICE (ingestion) once the local stack is up: servers the stack starts
   * keep the priority they were started with.
   */
  atWorkersNice?: boolean;
}

export async function openProcessContext(options: OpenOptions): Promise<ProcessContext> {
  const baseConfig = options.config ?? loadConfig();
  // The CLI talks to people through `say`; its JSON log keeps to warnings, on stderr.
  const logger = options.say
    ? createLogger(baseConfig, options.name, { toStderr: true, level: baseConfig.LOG_LEVEL === 'info' ? 'warn' : baseConfig.LOG_LEVEL })
    : createLogger(baseConfig, options.name);
  const say = options.say ?? ((line: string) => logger.info(line));
  const shutdown = new Shutdown((line) => say(line));

  const stack = await ensureLocalStack(baseConfig, { log: say });
  shutdown.add('local stack', () => stack.stop());
  const config = configWithStack(baseConfig, stack);
  if (options.atWorkersNice) lowerCpuPriority(config.WORKERS_NICE);
  if (options.migrate ?? true) {
    // A process that cannot migrate ends, and the local servers it started end with it:
    // their supervision would otherwise keep it alive after the error is shown.
    await migrate(config, { log: say }).catch(async (error: unknown) => {
      await shutdown.run();
      throw error;
    });
  }
  return { config, logger, shutdown };
}
