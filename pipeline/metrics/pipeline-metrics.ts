/**
 * What the workers count, per process (Prometheus sums the replicas):
 *
 *   soulgraph_job_duration_seconds{queue}           histogram of finished jobs (its _count: jobs done)
 *   soulgraph_job_failures_total{queue, final}      failed attempts; final="true" when no retry is left
 *   soulgraph_rows_ingested_total{kind, outcome}    rows written (accepted) or refused (rejected) per record kind
 *   soulgraph_chain_head_lag_blocks{chain_id}       set by on-chain ingestion (chain-head-lag.ts)
 *
 * Label values are queue names, record kinds and chain ids: bounded sets.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { chainHeadLag } from './chain-head-lag.ts';

export interface PipelineMetrics {
  registry: Registry;
  jobDuration: Histogram<'queue'>;
  jobFailures: Counter<'queue' | 'final'>;
  rowsIngested: Counter<'kind' | 'outcome'>;
}

/** Seconds: from a one-row API record to a long compaction. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

export function createPipelineMetrics(registry: Registry): PipelineMetrics {
  // Registered here so the series is described on /metrics before any chain worker reports.
  chainHeadLag(registry);
  return {
    registry,
    jobDuration: new Histogram({
      name: 'soulgraph_job_duration_seconds',
      help: 'Jobs finished successfully, by queue: processing time in seconds (_count is the jobs done)',
      labelNames: ['queue'] as const,
      buckets: JOB_BUCKETS,
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: 'soulgraph_job_failures_total',
      help: 'Failed job attempts by queue; final="true" when the job is left failed (no attempt left, or a payload that can never succeed)',
      labelNames: ['queue', 'final'] as const,
      registers: [registry],
    }),
    rowsIngested: new Counter({
      name: 'soulgraph_rows_ingested_total',
      help: 'Rows by record kind: outcome="accepted" written to ClickHouse, outcome="rejected" refused (see ingest_rejects)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
  };
}
