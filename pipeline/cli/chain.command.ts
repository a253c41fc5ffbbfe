/**
 * `soulgraph chain backfill --chain <id> --from <n> --to <n>`: a block range of a configured
 * chain, split into jobs on the chain queue, with a progress bar (blocks/s, distance to head).
 * `soulgraph chain follow --chain <id>`: keeps up with the chain's head minus its
 * confirmations from its checkpoint until Ctrl-C (the scheduler's chain-follow entry does the
 * same in the workers). Chains: CHAINS, docs/chains.md.
 *
 * The work itself (chain-run.ts, viem and the chain pipeline) is loaded only when one of
 * these commands runs, so that every other command starts as fast as before.
 */
import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from './usage-error.ts';

const blockNumber = z.coerce.number().int().min(0);

export function chainCommand(): Command {
  const command = new Command('chain').description('On-chain ingestion from the chains configured in CHAINS (docs/chains.md)');
  command
    .command('backfill')
    .description('Ingest a block range of a chain through the chain queue')
    .requiredOption('--chain <id>', 'chain id (one of CHAINS)')
    .requiredOption('--from <block>', 'first block (inclusive)')
    .requiredOption('--to <block>', 'last block (inclusive)')
    .addOption(new Option('--workers <when>', 'run a chain worker in this process: auto = only if none serves the queue').choices(['auto', 'yes', 'no']).default('auto'))
    .addHelpText('after', '\nExample:\n  soulgraph chain backfill --chain 1 --from 17000000 --to 17010000')
    .action(async (raw: { chain: string; from: string; to: string; workers: string }) => {
      const chainId = parse(blockNumber, raw.chain, '--chain');
      const from = parse(blockNumber, raw.from, '--from');
      const to = parse(blockNumber, raw.to, '--to');
      if (to < from) throw new UsageError('--to must not be below --from');
      await (await import('./chain-run.ts')).backfill(chainId, from, to, raw.workers);
    });
  command
    .command('follow')
    .description("Keep up with a chain's head minus its confirmations, from its checkpoint, until Ctrl-C")
    .requiredOption('--chain <id>', 'chain id (one of CHAINS)')
    .option('--from <block>', 'where to start if the chain has no checkpoint yet (default: the current safe head)')
    .option('--poll-ms <ms>', 'wait between polls of the head once caught up', '2000')
    .action(async (raw: { chain: string; from?: string; pollMs: string }) => {
      const chainId = parse(blockNumber, raw.chain, '--chain');
      const from = raw.from === undefined ? undefined : parse(blockNumber, raw.from, '--from');
      await (await import('./chain-run.ts')).follow(chainId, from, parse(z.coerce.number().int().min(100), raw.pollMs, '--poll-ms'));
    });
  return command;
}

function parse<T>(schema: z.ZodType<T>, value: string, name: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(`${name}: ${z.prettifyError(r.error)}`);
  return r.data;
}
