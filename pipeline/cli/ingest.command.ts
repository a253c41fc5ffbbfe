/**
 * `soulgraph ingest <kind> <file...>`: splits files into chunk jobs on the kind's queue
 * and follows them to the end with a progress bar and a summary. When no worker is
 * serving the queue, it runs workers in this process for the duration.
 */
import path from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { ingestFormats, ingestQueueName } from '../../shared/queues.ts';
import { kindNames, type KindName } from '../../shared/records/kinds.ts';
import { IngestInterrupted, ingestWorkerCount, runIngest, type IngestProgress, type IngestSummary } from '../ingest/ingest-run.ts';
import { IngestInputError, preflight } from '../ingest/preflight.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { startWorkers } from '../workers.ts';
import { createProgressDisplay } from './progress-display.ts';
import { UsageError } from './usage-error.ts';

const optionsSchema = z.object({
  format: z.enum(ingestFormats),
  chainId: z.coerce.number().int().min(1).optional(),
  chunkRows: z.coerce.number().int().min(1).max(1_000_000).optional(),
  workers: z.enum(['auto', 'yes', 'no']),
  failOnReject: z.boolean().optional(),
});

export function ingestCommand(): Command {
  return new Command('ingest')
    .description('Ingest JSON Lines or CSV files of one record kind through the pipeline queues')
    .argument('<kind>', `record kind: ${kindNames.join(', ')}`)
    .argument('<file...>', 'files (.jsonl/.ndjson/.json = JSON Lines, .csv = CSV with a header)')
    .addOption(new Option('--format <format>', 'column layout of the files').choices(ingestFormats).default('canonical'))
    .option('--chain-id <id>', 'chain id for formats without one (ethereum-etl)', '1')
    .option('--chunk-rows <n>', 'rows per job (default: INGEST_CHUNK_ROWS)')
    .addOption(
      new Option('--workers <when>', 'run workers in this process: auto = only if no worker serves the queue')
        .choices(['auto', 'yes', 'no'])
        .default('auto'),
    )
    .option('--fail-on-reject', 'exit with code 3 if any record was rejected')
    .addHelpText(
      'after',
      '\nExamples:\n  soulgraph ingest transactions --format ethereum-etl transactions.csv\n  soulgraph ingest profiles profiles.jsonl\n\nRecord formats: docs/ingestion.md',
    )
    .action(async (kind: string, files: string[], raw: Record<string, unknown>) => {
      if (!(kindNames as string[]).includes(kind)) throw new UsageError(`unknown kind "${kind}"; kinds are ${kindNames.join(', ')}`);
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success) throw new UsageError(z.prettifyError(parsed.error));
      const options = parsed.data;
      try {
        await preflight({ kind: kind as KindName, files, format: options.format });
        await ingestFiles(kind as KindName, files, options);
      } catch (error) {
        // Bad files are the caller's to fix: one line, exit code 2, no stack trace.
        if (error instanceof IngestInputError) throw new UsageError(error.message);
        throw error;
      }
    });
}

async function ingestFiles(kind: KindName, files: string[], options: z.infer<typeof optionsSchema>) {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const context = await openProcessContext({ name: 'ingest', say, atWorkersNice: true });
  const { config } = context;
  let interrupted = false;
  context.shutdown.exitOnSignals(130);
  try {
    const inProcess = options.workers === 'auto' ? (await ingestWorkerCount(config, kind)) === 0 : options.workers === 'yes';
    if (inProcess) {
      say(`no worker is serving ${ingestQueueName(kind)}: running one in this process (start \`soulgraph workers\` to run them separately)`);
      const running = await startWorkers(config, context.logger, { kinds: [kind], maintenance: false });
      context.shutdown.add('in-process workers', () => running.close());
    }

    const display = createProgressDisplay(kind, '{rows} rows read, {done} ingested | {rate} rows/s | {rejected} rejected');
    const started = Date.now();
    let summary: IngestSummary;
    try {
      summary = await runIngest(config, {
        kind,
        files,
        format: options.format,
        chainId: options.chainId ?? 1,
        chunkRows: options.chunkRows ?? config.INGEST_CHUNK_ROWS,
        // The path as given, so same-named files in different folders keep apart in ingest_rejects.
        sourceName: (file) => path.relative(process.cwd(), path.resolve(file)),
        onProgress: (p) =>
          display.update(ingestedBytes(p), p.totalBytes, {
            rows: p.rowsRead,
            done: p.rowsDone,
            rate: Math.round(p.rowsDone / Math.max(0.001, (Date.now() - started) / 1000)),
            rejected: p.rejected,
          }),
      });
    } catch (error) {
      display.stop();
      if (!(error instanceof IngestInterrupted)) throw error;
      printSummary(kind, error.summary);
      say(`soulgraph: ${error.message}`);
      say('chunks already queued are ingested by the workers; run the same command again once Redis answers (re-ingesting adds no duplicates)');
      interrupted = true;
      return;
    }
    display.stop();
    printSummary(kind, summary);
    if (summary.failedChunks.length > 0) process.exitCode = 1;
    else if (options.failOnReject && summary.rejected > 0) process.exitCode = 3;
  } finally {
    await context.shutdown.run();
    // Connections that lost Redis keep reconnecting, and the process alive, however they were closed.
    if (interrupted) process.exit(1);
  }
}

function printSummary(kind: KindName, s: IngestSummary): void {
  const seconds = s.elapsedMs / 1000;
  const lines = [
    `${kind}: ${s.accepted} accepted, ${s.rejected} rejected, ${s.rowsRead} read in ${s.chunks} chunk${s.chunks === 1 ? '' : 's'}, ${seconds.toFixed(1)} s (${Math.round(s.rowsRead / Math.max(seconds, 0.001))} rows/s)`,
  ];
  for (const r of s.rejectSamples.slice(0, 10)) lines.push(`  rejected ${r.source}:${r.line}: ${r.reason}`);
  if (s.rejected > 10) lines.push(`  ... all rejects are in the ingest_rejects table`);
  for (const f of s.failedChunks) lines.push(`  FAILED chunk from ${f.source}:${f.firstLine} (job ${f.jobId}): ${f.reason}`);
  if (s.failedChunks.length > 0) lines.push(`  retry failed chunks with: soulgraph status, then re-run this ingest (re-ingesting is idempotent)`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * How far the bar is: the bytes read, scaled by the share of the rows read that are
 * ingested. Reading runs ahead of the workers, so bytes read alone showed 100 % next to
 * "0 ingested".
 */
export function ingestedBytes(p: Pick<IngestProgress, 'bytesRead' | 'rowsRead' | 'rowsDone'>): number {
  return p.rowsRead === 0 ? 0 : Math.round(p.bytesRead * Math.min(1, p.rowsDone / p.rowsRead));
}
