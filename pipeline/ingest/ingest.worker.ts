/**
 * One factory for every ingestion queue: the kinds differ only in their schema and table
 * (shared/records), not in how a job is run.
 */
import { UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { ingestJobSchema, ingestQueueName, type IngestResult } from '../../shared/queues.ts';
import type { KindName } from '../../shared/records/kinds.ts';
import type { ServingWriter } from '../serving/serving-writer.ts';
import type { PipelineMetrics } from '../metrics/pipeline-metrics.ts';
import { ingestChunk } from './ingest-chunk.ts';

export interface IngestWorkerDeps {
  config: Config;
  clickhouse: ClickHouse;
  connection: ConnectionOptions;
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
      const started = performance.now();
      const result = await ingestChunk(deps.clickhouse, payload.data, job.id ?? 'unknown', deps.serving);
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
  // Failures and worker errors are logged for every worker by observeJobs (job-observer.ts).
  return worker;
}
