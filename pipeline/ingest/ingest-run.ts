/**
 * The producer side of file ingestion: reads files as chunks, enqueues one job per chunk
 * (never more than `maxOutstanding` unfinished at once, so a huge file does not flood
 * Redis), and follows the jobs to completion, reporting progress as it goes.
 */
import { randomBytes } from 'node:crypto';
import { Job, type Queue } from 'bullmq';
import { ingestResultSchema, type IngestFormat, type IngestJob } from '../../shared/queues.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import { preflight } from './preflight.ts';
import { readSourceChunks } from './source-chunks.ts';

export interface IngestRunOptions {
  kind: KindName;
  files: string[];
  format: IngestFormat;
  chainId?: number;
  chunkRows: number;
  /** Unfinished jobs allowed at once; reading pauses beyond it. */
  maxOutstanding?: number;
  /** Name recorded as `source` of rejects; defaults to the file path as given. */
  sourceName?: (file: string) => string;
  onProgress?: (progress: IngestProgress) => void;
  pollMs?: number;
}

export interface IngestProgress {
  file: string;
  bytesRead: number;
  totalBytes: number;
  rowsRead: number;
  rowsDone: number;
  accepted: number;
  rejected: number;
  chunksQueued: number;
  chunksDone: number;
}

export interface IngestSummary {
  chunks: number;
  rowsRead: number;
  accepted: number;
  rejected: number;
  rejectSamples: { source: string; line: number; reason: string }[];
  failedChunks: { jobId: string; source: string; firstLine: number; reason: string }[];
  elapsedMs: number;
}

interface Outstanding {
  source: string;
  rows: number;
  firstLine: number;
}

export async function runIngest(queue: Queue, options: IngestRunOptions): Promise<IngestSummary> {
  await preflight(options);
  const started = Date.now();
  const runId = `${started.toString(36)}${randomBytes(4).toString('hex')}`;
  const maxOutstanding = options.maxOutstanding ?? 32;
  const outstanding = new Map<string, Outstanding>();
  const summary: IngestSummary = {
    chunks: 0,
    rowsRead: 0,
    accepted: 0,
    rejected: 0,
    rejectSamples: [],
    failedChunks: [],
    elapsedMs: 0,
  };
  const progress: IngestProgress = {
    file: '',
    bytesRead: 0,
    totalBytes: 0,
    rowsRead: 0,
    rowsDone: 0,
    accepted: 0,
    rejected: 0,
    chunksQueued: 0,
    chunksDone: 0,
  };
  const report = () => options.onProgress?.({ ...progress });

  const settle = async () => {
    for (const [jobId, chunk] of outstanding) {
      const state = await queue.getJobState(jobId);
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      outstanding.delete(jobId);
      progress.chunksDone++;
      progress.rowsDone += chunk.rows;
      const job = state === 'unknown' ? undefined : await Job.fromId(queue, jobId);
      if (state === 'completed' && job) {
        const result = ingestResultSchema.parse(job.returnvalue);
        summary.accepted += result.accepted;
        summary.rejected += result.rejected;
        for (const s of result.rejectSamples) {
          if (summary.rejectSamples.length < 50) summary.rejectSamples.push({ source: chunk.source, ...s });
        }
      } else {
        const reason = job?.failedReason ?? 'the job disappeared from the queue';
        summary.failedChunks.push({ jobId, source: chunk.source, firstLine: chunk.firstLine, reason });
      }
      progress.accepted = summary.accepted;
      progress.rejected = summary.rejected;
    }
    report();
  };

  for (const file of options.files) {
    const source = options.sourceName?.(file) ?? file;
    progress.file = file;
    const chunks = readSourceChunks(file, options.chunkRows, ({ bytesRead, totalBytes }) => {
      progress.bytesRead = bytesRead;
      progress.totalBytes = totalBytes;
    });
    for await (const chunk of chunks) {
      while (outstanding.size >= maxOutstanding) {
        await settle();
        if (outstanding.size >= maxOutstanding) await sleep(options.pollMs ?? 200);
      }
      const data: IngestJob = {
        kind: options.kind,
        source,
        format: options.format,
        ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
        ...(chunk.header ? { header: chunk.header } : {}),
        rows: chunk.rows,
        lines: chunk.lines,
      };
      const jobId = `${runId}-${summary.chunks}`;
      await queue.add('chunk', data, { jobId });
      outstanding.set(jobId, { source, rows: chunk.rows.length, firstLine: chunk.lines[0] ?? 0 });
      summary.chunks++;
      summary.rowsRead += chunk.rows.length;
      progress.chunksQueued = summary.chunks;
      progress.rowsRead = summary.rowsRead;
      report();
    }
  }

  while (outstanding.size > 0) {
    await settle();
    if (outstanding.size > 0) await sleep(options.pollMs ?? 200);
  }
  summary.elapsedMs = Date.now() - started;
  return summary;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
