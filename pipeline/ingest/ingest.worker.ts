/**
 * One factory for every ingestion queue: the kinds differ only in their schema and table
 * (shared/records), not in how a job is run.
 */
import { UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { ingestJobSchema, ingestQueueName, type IngestJob, type IngestJobPayload, type IngestResult } from '../../shared/queues.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import type { ServingWriter } from '../serving/serving-writer.ts';
import type { PipelineMetrics } from '../metrics/pipeline-metrics.ts';
import type { ChunkTexts } from './chunk-texts.ts';
import { ingestChunk } from './ingest-chunk.ts';

export interface IngestWorkerDeps {
  config: Config;
  clickhouse: ClickHouse;
  connection: ConnectionOptions;
  /** Where `soulgraph ingest` stores the text of JSON Lines chunks. */
  chunkTexts: ChunkTexts;
  logger: Logger;
  /** Where profiles and follows are written through for the API. */
  serving?: ServingWriter;
  metrics?: PipelineMetrics;
}

/** Profiles are linked to identifiers read-then-write: one chunk at a time (see profile-identities.ts). */
export const SERIAL_KINDS: readonly KindName[] = ['profiles'];

export function createIngestWorker(kind: KindName, deps: IngestWorkerDeps): Worker<unknown, IngestResult> {
  const queueName = ingestQueueName(kind);
  const log = deps.logger.child({ queue: queueName });
  const worker = new Worker<unknown, IngestResult>(
    queueName,
    async (job) => {
      const payload = ingestJobSchema.safeParse(job.data);
      if (!payload.success || payload.data.kind !== kind) {
        // A malformed payload fails the same way on every attempt: do not retry it.
        throw new UnrecoverableError(`invalid ${queueName} payload: ${payload.error?.message ?? 'wrong kind'}`);
      }
      const chunk = await withText(payload.data, deps.chunkTexts, queueName, job.id!);
      const started = performance.now();
      const result = await ingestChunk(deps.clickhouse, chunk, job.id ?? 'unknown', deps.serving);
      const ms = Math.round(performance.now() - started);
      deps.metrics?.rowsIngested.inc({ kind, outcome: 'accepted' }, result.accepted);
      deps.metrics?.rowsIngested.inc({ kind, outcome: 'rejected' }, result.rejected);
      log.debug({ jobId: job.id, accepted: result.accepted, rejected: result.rejected, ms }, 'chunk ingested');
      return result;
    },
    {
      connection: deps.connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: SERIAL_KINDS.includes(kind) ? 1 : deps.config.INGEST_WORKER_CONCURRENCY,
      lockDuration: deps.config.INGEST_LOCK_MS,
      stalledInterval: deps.config.INGEST_LOCK_MS,
      maxStalledCount: 3,
      name: `soulgraph-${kind}`,
    },
  );
  // A completed job's stored text is no longer needed (a failed job keeps it, to be retried).
  worker.on('completed', (job) => {
    deps.chunkTexts.delete(queueName, job.id!).catch((error: unknown) => log.warn({ err: error, jobId: job.id }, 'could not delete the stored chunk text; the sweep will'));
  });
  // Failures and worker errors are logged for every worker by observeJobs (job-observer.ts).
  return worker;
}

/** The chunk with its text, fetched when it was stored apart (chunk-texts.ts). */
async function withText(payload: IngestJobPayload, texts: ChunkTexts, queueName: string, jobId: string): Promise<IngestJob> {
  if (!('textBytes' in payload)) return payload;
  const { textBytes, ...chunk } = payload;
  const bytes = await texts.get(queueName, jobId);
  // Neither comes right on a later attempt.
  if (bytes === null) throw new UnrecoverableError(`the text of chunk ${jobId} is not stored (${texts.keyOf(queueName, jobId)} is gone)`);
  if (bytes.length !== textBytes) throw new UnrecoverableError(`the stored text of chunk ${jobId} is ${bytes.length} bytes, not ${textBytes}`);
  return { ...chunk, text: bytes };
}
