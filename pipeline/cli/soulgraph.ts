/**
 * The data engineers' command line: `npx soulgraph <command> --help`.
 *
 * Commands load lazily: only the module of the command being run is imported (with its
 * dependencies: BullMQ, ClickHouse, viem...), so `soulgraph apikey --help` does not pay
 * for the other fourteen. The top-level help lists every command from the table below.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../../shared/config-error.ts';
import { MissingBinaryError } from '../../shared/local-stack/binaries.ts';
import type { CpuSide } from '../../shared/cpu-affinity.ts';
import { UsageError } from './usage-error.ts';

export interface CommandEntry {
  description: string;
  load: () => Promise<Command>;
  /** Ingestion: on INGEST_CPUS from its first line of work (shared/cpu-affinity.ts). */
  runsAs?: CpuSide;
}

/** In help order. Each description is its command's own (test/unit/cli-commands.test.ts keeps them equal). */
export const COMMANDS: Record<string, CommandEntry> = {
  start: {
    description: 'Run everything locally: stack, migrations, workers, scheduler, and a demo world on first start',
    load: async () => (await import('./start.command.ts')).startCommand(),
  },
  demo: {
    description: "Print a ready-to-paste walk through the API as a demo user of `soulgraph start`'s demo world",
    load: async () => (await import('./demo.command.ts')).demoCommand(),
  },
  ingest: {
    description: 'Ingest JSON Lines or CSV files of one record kind through the pipeline queues',
    load: async () => (await import('./ingest.command.ts')).ingestCommand(),
    runsAs: 'ingestion',
  },
  chain: {
    description: 'On-chain ingestion from the chains configured in CHAINS (docs/chains.md)',
    load: async () => (await import('./chain.command.ts')).chainCommand(),
  },
  materialize: {
    description: 'Compute a new snapshot of recommendations and tags now, showing progress per bucket',
    load: async () => (await import('./materialize.command.ts')).materializeCommand(),
  },
  eval: {
    description: 'Measure recommendation quality on a real follow graph with edges held out, against classic baselines user by user',
    load: async () => (await import('./eval.command.ts')).evalCommand(),
  },
  status: {
    description: 'Show queue depths, workers, recent failures, schedules, and rows per table',
    load: async () => (await import('./status.command.ts')).statusCommand(),
  },
  migrate: {
    description: 'Apply pending ClickHouse migrations (idempotent; safe from several processes at once)',
    load: async () => (await import('./migrate.command.ts')).migrateCommand(),
  },
  generate: {
    description: 'Write a deterministic demo world: one JSON Lines file per record kind, plus manifest.json',
    load: async () => (await import('./generate.command.ts')).generateCommand(),
  },
  workers: {
    description: 'Run the ingestion and housekeeping workers until SIGTERM',
    load: async () => (await import('./process.command.ts')).workersCommand(),
    runsAs: 'ingestion',
  },
  scheduler: {
    description: 'Reconcile the declared job schedulers with BullMQ, then serve the queue dashboard (ADMIN_PORT) until SIGTERM',
    load: async () => (await import('./process.command.ts')).schedulerCommand(),
  },
  apikey: {
    description: 'Issue, list and revoke the API keys apps send in the ApiKey header',
    load: async () => (await import('./apikey.command.ts')).apikeyCommand(),
  },
  secrets: {
    description: 'Generate the secrets the API needs in production',
    load: async () => (await import('./secrets.command.ts')).secretsCommand(),
  },
  custodian: {
    description: 'The local custody network that guards tag decryption keys',
    load: async () => (await import('./custodian.command.ts')).custodianCommand(),
  },
  schedules: {
    description: 'List the job schedulers with their cron (UTC) and next run',
    load: async () => (await import('./schedules.command.ts')).schedulesCommand(),
  },
  retry: {
    description: 'Re-run failed jobs of a queue: every one (--all) or the given ones (--job)',
    load: async () => (await import('./retry.command.ts')).retryCommand(),
  },
};

/**
 * The program for these arguments: the named command fully loaded (also for `help <name>`),
 * every other one as a name and description only, enough for the top-level help.
 */
export async function programFor(args: readonly string[]): Promise<Command> {
  const [first, second] = args;
  const wanted = first === 'help' ? second : first;
  const program = new Command('soulgraph')
    .description('soulgraph pipeline: ingest, inspect and run the data behind the API')
    .showHelpAfterError();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    program.addCommand(name === wanted ? await entry.load() : new Command(name).description(entry.description));
  }
  // exitOverride is not inherited by added commands: every level must throw, not exit(1).
  exitOverrideEverywhere(program);
  return program;
}

/** Runs the CLI on `args` (without node and the script); resolves with the exit code (a command may have set one). */
export async function runCli(args: readonly string[]): Promise<number> {
  try {
    await confineCommand(COMMANDS[args[0] ?? '']?.runsAs);
    await (await programFor(args)).parseAsync(args, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    return exitCodeFor(error);
  }
}

/** Before the command's module loads, so that its imports already run on its side's CPUs; config and taskset load only then. */
async function confineCommand(side: CpuSide | undefined): Promise<void> {
  if (!side) return;
  const [{ loadConfig }, { confineToSide }] = await Promise.all([import('../../shared/config.ts'), import('../../shared/cpu-affinity.ts')]);
  confineToSide(side, loadConfig().INGEST_CPUS);
}

/** The exit code for an error that ended a command, after saying it on stderr (a stack trace only for the unexpected). */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`soulgraph: ${error.message}\n`);
    return 2;
  }
  // The message says what to install; where in the code it was found missing helps nobody.
  if (error instanceof MissingBinaryError) {
    process.stderr.write(`soulgraph: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(`soulgraph: ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}
