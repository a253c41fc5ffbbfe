/**
 * The producer side of file ingestion: reads files as chunks, enqueues one job per chunk
 * (never more than `maxOutstanding` unfinished at once, so a huge file does not flood
 * Redis), and follows the jobs to completion, reporting progress as it goes.
 */
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Config } from '../../shared/config.ts';
import { ingestJobOptions, ingestQueueName, type IngestFormat, type IngestJobPayload } from '../../shared/queues.ts';
import { createRedis, redisConnection } from '../../shared/redis.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import { ChunkTexts } from './chunk-texts.ts';
import { ChunkTracker, type ChunkOutcome } from './chunk-tracker.ts';
import { preflight } from './preflight.ts';
import { readSourceChunks, type SourceChunk } from './source-chunks.ts';
import { settlesWithin } from '../settles-within.ts';

export interface IngestRunOptions {
  kind: KindName;
  files: string[];
  format: IngestFormat;
  chainId?: number;
  chunkRows: number;
  /** Unfinished jobs allowed at once; reading pauses beyond it. Default: MAX_ROWS_IN_FLIGHT rows' worth. */
  maxOutstanding?: number;
  /** Name recorded as `source` of rejects; defaults to the file path as given. */
  sourceName?: (file: string) => string;
  onProgress?: (progress: IngestProgress) => void;
  /** How often unfinished jobs are re-checked in case their completion event was missed. */
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

/**
 * Rows a run keeps queued or in progress at once (8 chunks of 50,000): enough to keep every
 * worker busy, and what bounds the Redis memory a run takes (~270 bytes per transaction row)
 * whatever the chunk size.
 */
export const MAX_ROWS_IN_FLIGHT = 400_000;

/** How long the run's queue connections get to close; one that lost Redis may never (BullMQ waits for an 'end' that a reconnecting client never emits). */
const CLOSE_TIMEOUT_MS = 5_000;

/** The run stopped before its end (Redis went away mid-run, most often): what it had done by then. */
export class IngestInterrupted extends Error {
  override name = 'IngestInterrupted';
  constructor(
    readonly summary: IngestSummary,
    cause: unknown,
  ) {
    super(`the run stopped before its end: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Ingests the files through the kind's queue; resolves when every chunk has finished. */
export async function runIngest(config: Config, options: IngestRunOptions): Promise<IngestSummary> {
  await preflight(options);
  const started = Date.now();
  const runId = `${started.toString(36)}${randomBytes(4).toString('hex')}`;
  const maxOutstanding = options.maxOutstanding ?? Math.max(2, Math.ceil(MAX_ROWS_IN_FLIGHT / options.chunkRows));
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
  const record = (outcome: ChunkOutcome) => {
    progress.chunksDone++;
    progress.rowsDone += outcome.chunk.rows;
    if ('result' in outcome) {
      summary.accepted += outcome.result.accepted;
      summary.rejected += outcome.result.rejected;
      for (const s of outcome.result.rejectSamples) {
        if (summary.rejectSamples.length < 50) summary.rejectSamples.push({ source: outcome.chunk.source, ...s });
      }
    } else {
      const { jobId, chunk, failedReason: reason } = outcome;
      summary.failedChunks.push({ jobId, source: chunk.source, firstLine: chunk.firstLine, reason });
    }
    progress.accepted = summary.accepted;
    progress.rejected = summary.rejected;
    report();
  };

  const queue = new Queue(ingestQueueName(options.kind), {
    connection: redisConnection(config, 'producer'),
    prefix: config.QUEUE_PREFIX,
    defaultJobOptions: ingestJobOptions(config),
  });
  // Listening before the first job is added, so that no completion can be missed.
  const events = new QueueEvents(queue.name, { connection: redisConnection(config, 'worker'), prefix: config.QUEUE_PREFIX });
  await events.waitUntilReady();
  const tracker = new ChunkTracker(queue, events, record, options.pollMs);
  const redis = createRedis({ ...redisConnection(config, 'producer'), lazyConnect: true });
  // Connection errors come back as the failure of the command that needed Redis, which ends
  // the run with its summary; without a listener ioredis prints each reconnect attempt too.
  redis.on('error', () => {});
  const texts = new ChunkTexts(redis, config.QUEUE_PREFIX);
  try {
    await redis.connect();
    for (const file of options.files) {
      const source = options.sourceName?.(file) ?? file;
      progress.file = file;
      const chunks = readSourceChunks(file, options.chunkRows, ({ bytesRead, totalBytes }) => {
        progress.bytesRead = bytesRead;
        progress.totalBytes = totalBytes;
      });
      for await (const chunk of chunks) {
        await tracker.waitBelow(maxOutstanding);
        const origin = { kind: options.kind, source, format: options.format, ...(options.chainId === undefined ? {} : { chainId: options.chainId }) };
        const jobId = `${runId}-${summary.chunks}`;
        const firstLine = 'bytes' in chunk ? chunk.firstLine : (chunk.lines[0] ?? 0);
        tracker.track(jobId, { source, rows: chunk.rowCount, firstLine });
        if ('bytes' in chunk) {
          // The text first, so that no worker ever sees the job without it (chunk-texts.ts).
          await texts.put(queue.name, jobId, chunk.bytes);
          await queue.add('chunk', { ...origin, textBytes: chunk.bytes.length, firstLine } satisfies IngestJobPayload, { jobId });
          await texts.claim(queue.name, jobId);
        } else {
          await queue.add('chunk', { ...origin, ...csvBody(chunk) } satisfies IngestJobPayload, { jobId });
        }
        summary.chunks++;
        summary.rowsRead += chunk.rowCount;
        progress.chunksQueued = summary.chunks;
        progress.rowsRead = summary.rowsRead;
        report();
      }
    }
    await tracker.waitBelow(1);
  } catch (error) {
    summary.elapsedMs = Date.now() - started;
    throw new IngestInterrupted(summary, error);
  } finally {
    redis.disconnect();
    await settlesWithin(Promise.allSettled([events.close(), queue.close()]), CLOSE_TIMEOUT_MS);
  }
  summary.elapsedMs = Date.now() - started;
  return summary;
}

function csvBody({ header, rows, lines, malformed }: Extract<SourceChunk, { rows: string[][] }>) {
  return { header, rows, lines, ...(malformed ? { malformed } : {}) };
}

/** How many workers (in any process) are serving the kind's queue right now. */
export async function ingestWorkerCount(config: Config, kind: KindName): Promise<number> {
  const queue = new Queue(ingestQueueName(kind), { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  try {
    return await queue.getWorkersCount();
  } finally {
    await queue.close();
  }
}
