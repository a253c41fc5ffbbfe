/**
 * Logs and metrics for every job of every worker, attached in one place (startWorkers):
 * each finished or failed job leaves one JSON line carrying its queue and job id, and
 * moves the job metrics. A worker added to startWorkers is observed without further code.
 */
import type { Job, Worker } from 'bullmq';
import type { Logger } from '../shared/logger.ts';
import type { PipelineMetrics } from './metrics/pipeline-metrics.ts';

export function observeJobs(worker: Worker, logger: Logger, metrics: PipelineMetrics): void {
  const queue = worker.name;
  const log = logger.child({ queue });
  worker.on('completed', (job: Job) => {
    const seconds = processingSeconds(job);
    if (seconds !== undefined) metrics.jobDuration.observe({ queue }, seconds);
    log.info({ jobId: job.id, job: job.name, attempts: job.attemptsMade, ms: seconds === undefined ? undefined : Math.round(seconds * 1000) }, 'job completed');
  });
  worker.on('failed', (job: Job | undefined, error: Error) => {
    // BullMQ sets finishedOn only when the job is left failed; a retry is still to come otherwise.
    const final = job?.finishedOn !== undefined;
    metrics.jobFailures.inc({ queue, final: String(final) });
    log.warn({ jobId: job?.id, job: job?.name, attempts: job?.attemptsMade, final, err: error.message }, final ? 'job failed' : 'job attempt failed, will retry');
  });
  worker.on('error', (error: Error) => log.error({ err: error.message }, 'worker error'));
}

function processingSeconds(job: Job): number | undefined {
  return job.processedOn !== undefined && job.finishedOn !== undefined ? (job.finishedOn - job.processedOn) / 1000 : undefined;
}
