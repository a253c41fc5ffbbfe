/**
 * `soulgraph generate`: writes a deterministic demo world (one JSON Lines file per record
 * kind plus manifest.json) for demos, tests and benchmarks.
 */
import { Command } from 'commander';
import { z } from 'zod';
import {
  MAX_PROFILES,
  generateWorld,
  generatedKinds,
  isGeneratedKind,
  type GenerateProgress,
  type GeneratedKind,
  type WorldManifest,
} from '../generate/world-generator.ts';
import { createProgressDisplay, type ProgressDisplay } from './progress-display.ts';
import { UsageError } from './usage-error.ts';

/** A required option holding a whole number in [min, max]; every message names the flag. */
function wholeNumber(flag: string, min: number, max: number) {
  return z
    .string({ error: `${flag} is required` })
    .trim()
    .regex(/^\d+$/, `${flag} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${flag} must be from ${min} to ${max}`);
}

const kindList = z
  .string()
  .optional()
  .transform((list, ctx) => {
    if (list === undefined) return undefined;
    const kinds = list.split(',').map((k) => k.trim()).filter(Boolean);
    const unknown = kinds.filter((k) => !isGeneratedKind(k));
    if (kinds.length === 0 || unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `--kinds: unknown kind "${unknown[0] ?? list}"; kinds are ${generatedKinds.join(', ')}`,
      });
      return z.NEVER;
    }
    return kinds as GeneratedKind[];
  });

const optionsSchema = z.object({
  profiles: wholeNumber('--profiles', 1, MAX_PROFILES),
  seed: wholeNumber('--seed', 0, Number.MAX_SAFE_INTEGER),
  out: z.string({ error: '--out is required' }).trim().min(1, '--out must name a directory'),
  kinds: kindList,
  chainId: wholeNumber('--chain-id', 1, 4_294_967_295),
  appFollowScale: z.coerce.number({ error: '--app-follow-scale must be a number' }).gt(0, '--app-follow-scale must be above 0').max(100, '--app-follow-scale must be at most 100'),
});

type GenerateCliOptions = z.infer<typeof optionsSchema>;

export function generateCommand(): Command {
  return new Command('generate')
    .description('Write a deterministic demo world: one JSON Lines file per record kind, plus manifest.json')
    .option('--profiles <n>', 'number of profiles (scales every other kind)')
    .option('--seed <s>', 'random seed; the same profiles and seed give byte-identical files')
    .option('--out <dir>', 'output directory (created if missing; files are overwritten)')
    .option('--kinds <list>', `only these kinds, comma-separated: ${generatedKinds.join(', ')}`)
    .option('--chain-id <id>', 'chain id written into on-chain records', '1')
    .option('--app-follow-scale <x>', 'multiply the in-app follows per profile (1 = about 7 each)', '1')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  soulgraph generate --profiles 1000 --seed 42 --out .data/demo',
        '  soulgraph generate --profiles 1000000 --seed 7 --out /tmp/bench --kinds transactions',
        '',
        'Then ingest each file, e.g. soulgraph ingest profiles .data/demo/profiles.jsonl',
      ].join('\n'),
    )
    .action(async (raw: Record<string, unknown>) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
      await generate(parsed.data);
    });
}

async function generate(options: GenerateCliOptions): Promise<void> {
  const started = performance.now();
  const progress = phaseProgress();
  let manifest: WorldManifest;
  try {
    manifest = await generateWorld({
      profiles: options.profiles,
      seed: options.seed,
      outDir: options.out,
      kinds: options.kinds,
      chainId: options.chainId,
      appFollowScale: options.appFollowScale,
      onProgress: progress.update,
    });
  } finally {
    progress.stop();
  }
  process.stdout.write(summaryTable(manifest, options.out, performance.now() - started));
}

/** One progress bar per phase (kind), each replaced by the next when its phase starts. */
function phaseProgress(): { update: (p: GenerateProgress) => void; stop: () => void } {
  let phase = '';
  let display: ProgressDisplay | undefined;
  return {
    update(p) {
      if (p.phase !== phase) {
        display?.stop();
        phase = p.phase;
        display = createProgressDisplay(p.phase.padEnd(15), '{done}/{total} units');
      }
      display!.update(p.done, p.total, { done: p.done, total: p.total });
    },
    stop: () => display?.stop(),
  };
}

function summaryTable(manifest: WorldManifest, outDir: string, elapsedMs: number): string {
  const rows = Object.values(manifest.files).map((f) => [f.file, f.rows.toLocaleString('en-US')] as const);
  const total = Object.values(manifest.files).reduce((sum, f) => sum + f.rows, 0);
  const all = [['file', 'rows'] as const, ...rows, ['total', total.toLocaleString('en-US')] as const];
  const nameWidth = Math.max(...all.map(([name]) => name.length));
  const rowsWidth = Math.max(...all.map(([, count]) => count.length));
  const line = ([name, count]: readonly [string, string]) => `${name.padEnd(nameWidth)}  ${count.padStart(rowsWidth)}\n`;
  return (
    `\n${manifest.profiles.toLocaleString('en-US')} profiles, seed ${manifest.seed} -> ${outDir}\n` +
    all.map(line).join('') +
    `generated in ${(elapsedMs / 1000).toFixed(1)} s\n`
  );
}
