import { Command } from 'commander';
import { openProcessContext } from '../../shared/process/process-context.ts';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('Apply pending ClickHouse migrations (idempotent; safe from several processes at once)')
    .action(async () => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const context = await openProcessContext({ name: 'migrate', say, migrate: true });
      say(`database ${context.config.CLICKHOUSE_DATABASE} is up to date`);
      await context.shutdown.run();
    });
}
