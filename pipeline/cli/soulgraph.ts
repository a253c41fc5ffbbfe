/**
 * The data engineers' command line: `npx soulgraph <command> --help`.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../../shared/config.ts';
import { apikeyCommand } from './apikey.command.ts';
import { chainCommand } from './chain.command.ts';
import { custodianCommand } from './custodian.command.ts';
import { evalCommand } from './eval.command.ts';
import { generateCommand } from './generate.command.ts';
import { ingestCommand } from './ingest.command.ts';
import { materializeCommand } from './materialize.command.ts';
import { migrateCommand } from './migrate.command.ts';
import { retryCommand } from './retry.command.ts';
import { schedulesCommand } from './schedules.command.ts';
import { schedulerCommand, workersCommand } from './process.command.ts';
import { startCommand } from './start.command.ts';
import { secretsCommand } from './secrets.command.ts';
import { statusCommand } from './status.command.ts';
import { UsageError } from './usage-error.ts';

const program = new Command('soulgraph')
  .description('soulgraph pipeline: ingest, inspect and run the data behind the API')
  .showHelpAfterError()
  .exitOverride()
  .addCommand(startCommand())
  .addCommand(ingestCommand())
  .addCommand(chainCommand())
  .addCommand(materializeCommand())
  .addCommand(evalCommand())
  .addCommand(statusCommand())
  .addCommand(migrateCommand())
  .addCommand(generateCommand())
  .addCommand(workersCommand())
  .addCommand(schedulerCommand())
  .addCommand(apikeyCommand())
  .addCommand(secretsCommand())
  .addCommand(custodianCommand())
  .addCommand(schedulesCommand())
  .addCommand(retryCommand());

// exitOverride is not inherited by added commands: every level must throw, not exit(1).
exitOverrideEverywhere(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`soulgraph: ${error.message}\n`);
    return 2;
  }
  process.stderr.write(`soulgraph: ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}
