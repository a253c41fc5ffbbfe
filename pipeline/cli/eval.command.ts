/**
 * `soulgraph eval`: the offline quality evaluation of the recommender on a real follow
 * graph (pipeline/evaluate), with the classic baselines side by side.
 */
import { mkdir } from 'node:fs/promises';
import { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../../shared/config.ts';
import { EdgeListError } from '../evaluate/follow-graph.ts';
import { SplitError } from '../evaluate/holdout-split.ts';
import { runEvaluation } from '../evaluate/evaluation-run.ts';
import { UsageError } from './usage-error.ts';

const optionsSchema = z
  .object({
    edges: z.string().min(1).optional(),
    train: z.string().min(1).optional(),
    test: z.string().min(1).optional(),
    split: z.enum(['random', 'time'], { error: '--split must be random or time' }),
    undirected: z.boolean().optional(),
    header: z.boolean().optional(),
    oneWay: z.boolean().optional(),
    holdout: z.coerce.number({ error: '--holdout must be a number' }).gt(0, '--holdout must be above 0').lt(1, '--holdout must be below 1'),
    seed: z.coerce.number().int('--seed must be a whole number').min(0),
    k: z
      .string()
      .transform((v) => v.split(',').map((s) => Number(s.trim())))
      .refine((ks) => ks.length > 0 && ks.every((k) => Number.isInteger(k) && k >= 1 && k <= 1_000), '--k must be whole numbers from 1 to 1000, comma-separated'),
    out: z.string().min(1),
    lists: z.string().min(1).optional(),
    users: z.coerce.number().int().min(1, '--users must be at least 1').optional(),
    keepDatabase: z.boolean().optional(),
  })
  .refine((o) => (o.edges !== undefined) !== (o.train !== undefined || o.test !== undefined), 'give --edges, or --train and --test (a split made elsewhere)')
  .refine((o) => (o.train === undefined) === (o.test === undefined), '--train and --test go together')
  .refine((o) => o.edges !== undefined || o.split === 'random', '--split applies to --edges; --train and --test are a split already');

export function evalCommand(): Command {
  return new Command('eval')
    .description('Measure recommendation quality on a real follow graph with edges held out, against classic baselines user by user')
    .option('--edges <file>', 'edge list: "from<TAB>to" lines (or "from to time", or "from,to,rating,time" with positive ratings as follows), # or % comments (SNAP and KONECT formats)')
    .option('--train <file>', 'a split made elsewhere: the follows the recommender sees (with --test)')
    .option('--test <file>', 'a split made elsewhere: the follows it should find (with --train)')
    .option('--split <how>', 'random: each edge hidden with the --holdout probability; time: each user\'s newest --holdout share', 'random')
    .option('--undirected', 'each line is a pair, not a follow: pairs are hidden whole, kept pairs are follows both ways')
    .option('--header', 'the first line of each file names its columns: skip it')
    .option('--one-way', 'keep only the first-seen direction of each pair that follows both ways (what is left, following back cannot find)')
    .option('--holdout <fraction>', 'share of edges hidden from the recommender', '0.1')
    .option('--seed <n>', 'which edges are hidden (same seed, same split)', '1')
    .option('--k <list>', 'list lengths to score, comma-separated', '10,50')
    .option('--out <dir>', 'folder for the table (.md) and the chart (.svg)', 'eval-results')
    .option('--lists <file>', 'write every scored user\'s ranked list, for every method, as TSV: method, user, rank, candidate')
    .option('--users <n>', 'score at most this many users (a fixed sample); default all with a hidden edge')
    .option('--keep-database', 'does nothing now: the evaluation runs in memory and keeps no database (accepted so that older scripts still run)')
    .addHelpText(
      'after',
      '\nExamples:\n  soulgraph eval --edges ../shared/data/snap-epinions/soc-Epinions1.txt --holdout 0.1 --seed 1 --k 10,50\n' +
        '  soulgraph eval --edges ../shared/data/snap-bitcoin-alpha/soc-sign-bitcoinalpha.csv --header --split time\n' +
        '  soulgraph eval --edges ../shared/data/snap-facebook/facebook_combined.txt --undirected\n' +
        '  soulgraph eval --train train.txt --test test.txt --lists lists.tsv\n\nResults: docs/quality.md',
    )
    .action(async (raw: Record<string, unknown>) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
      const o = parsed.data;
      if (o.oneWay && o.undirected) throw new UsageError('--one-way keeps one direction of a follow graph: an --undirected graph has none');
      const say = (line: string) => process.stderr.write(`${line}\n`);
      // In memory: no ClickHouse or Redis to start, nothing to stop.
      const config = loadConfig();
      if (o.keepDatabase) say('--keep-database: the evaluation runs in memory and keeps no database');
      try {
        await mkdir(o.out, { recursive: true });
        const report = await runEvaluation(config, {
          ...(o.edges === undefined ? {} : { edgesFile: o.edges }),
          ...(o.train === undefined ? {} : { trainFile: o.train, testFile: o.test! }),
          split: o.split,
          undirected: o.undirected ?? false,
          header: o.header ?? false,
          oneWay: o.oneWay ?? false,
          ...(o.lists === undefined ? {} : { listsFile: o.lists }),
          holdout: o.holdout,
          seed: o.seed,
          ks: o.k,
          outDir: o.out,
          ...(o.users === undefined ? {} : { maxUsers: o.users }),
          say,
        });
        process.stdout.write(`${report.table}\n\ntable: ${report.files.table}\nchart: ${report.files.chart}\n`);
      } catch (error) {
        if (error instanceof EdgeListError || error instanceof SplitError || (error as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError((error as Error).message);
        throw error;
      }
    });
}
