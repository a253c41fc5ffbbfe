/**
 * Runs ChunkTexts.sweep when a workers process starts and then every `intervalMs`, so that
 * the stored text of a job BullMQ has removed (an old failed job, a completed one whose
 * worker died before deleting its text) does not hold Redis memory for long. Any number of
 * processes may sweep at once: a sweep deletes only texts whose job is gone.
 */
import type { Logger } from '../../shared/logger.ts';
import type { ChunkTexts } from './chunk-texts.ts';

export const SWEEP_INTERVAL_MS = 10 * 60_000;

/** Returns the function that stops the sweeping (once a sweep under way has finished). */
export function sweepChunkTexts(texts: ChunkTexts, logger: Logger, intervalMs = SWEEP_INTERVAL_MS): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = texts.sweep().then(
      (removed) => removed > 0 && logger.info({ removed }, 'removed the stored texts of chunk jobs that no longer exist'),
      (error: unknown) => logger.warn({ err: error }, 'sweeping stored chunk texts failed; the next sweep tries again'),
    );
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
