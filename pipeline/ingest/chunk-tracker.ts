/**
 * Follows the chunk jobs of one ingest run to their end. Completions arrive as QueueEvents
 * (with the job's result, so nothing re-reads the chunk's payload); a slow poll of the job
 * states catches anything whose event was missed (events are a capped Redis stream).
 */
import { Job, type Queue, type QueueEvents } from 'bullmq';
import { ingestResultSchema, type IngestResult } from '../../shared/queues.ts';

export interface TrackedChunk {
  source: string;
  rows: number;
  firstLine: number;
}

export type ChunkOutcome =
  | { jobId: string; chunk: TrackedChunk; result: IngestResult }
  | { jobId: string; chunk: TrackedChunk; failedReason: string };

export class ChunkTracker {
  private readonly outstanding = new Map<string, TrackedChunk>();
  private wake: (() => void) | undefined;

  constructor(
    private readonly queue: Queue,
    events: QueueEvents,
    private readonly onOutcome: (outcome: ChunkOutcome) => void,
    private readonly pollMs = 2_000,
  ) {
    events.on('completed', ({ jobId, returnvalue }) => this.settleCompleted(jobId, returnvalue));
    // 'failed' also fires for attempts that will be retried: only the failed state is final.
    events.on('failed', ({ jobId }) => void this.settleIfFinished(jobId));
  }

  get size(): number {
    return this.outstanding.size;
  }

  track(jobId: string, chunk: TrackedChunk): void {
    this.outstanding.set(jobId, chunk);
  }

  /** Resolves once fewer than `limit` chunks are unfinished. */
  async waitBelow(limit: number): Promise<void> {
    while (this.outstanding.size >= limit) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (this.outstanding.size >= limit) await this.pollStates();
    }
  }

  private settleCompleted(jobId: string, returnvalue: unknown): void {
    const chunk = this.outstanding.get(jobId);
    if (!chunk) return;
    const value = typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue;
    this.finish(jobId, { jobId, chunk, result: ingestResultSchema.parse(value) });
  }

  private async settleIfFinished(jobId: string): Promise<void> {
    const chunk = this.outstanding.get(jobId);
    if (!chunk) return;
    const state = await this.queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed' || state === 'unknown') {
      const job = state === 'unknown' ? undefined : await Job.fromId(this.queue, jobId);
      if (!this.outstanding.has(jobId)) return;
      if (state === 'completed' && job) {
        this.finish(jobId, { jobId, chunk, result: ingestResultSchema.parse(job.returnvalue) });
      } else {
        // 'unknown': finished and already removed while its completion event was missed.
        const reason = job?.failedReason ?? 'its result is no longer in the queue (finished, event missed); re-run to be sure';
        this.finish(jobId, { jobId, chunk, failedReason: reason });
      }
    }
  }

  private async pollStates(): Promise<void> {
    for (const jobId of [...this.outstanding.keys()]) await this.settleIfFinished(jobId);
  }

  private finish(jobId: string, outcome: ChunkOutcome): void {
    this.outstanding.delete(jobId);
    this.onOutcome(outcome);
    this.wake?.();
  }
}
