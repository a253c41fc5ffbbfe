/**
 * Ranks batches of profiles on worker threads, every core at once: each thread holds a
 * Ranker on the same world, whose arrays are on shared memory (read, never copied), and
 * answers a batch with its lists encoded (rank-thread.ts). A thread that fails fails its
 * batch; the bucket job that asked is retried as a whole.
 */
import { Worker } from 'node:worker_threads';
import type { FollowGraphArrays } from '../graph/follow-graph.ts';
import type { FollowMoments } from '../graph/follow-moments.ts';
import type { SignalGraphs } from '../graph/signal-graphs.ts';
import type { World } from '../graph/world.ts';
import type { EncoderNames } from '../write/list-encoder.ts';
import type { RankSettings } from './ranker.ts';
import type { RankingModel } from './ranking-model.ts';

export interface RankThreadInit {
  follows: FollowGraphArrays;
  moments?: FollowMoments;
  signals: SignalGraphs;
  settings: RankSettings;
  names: EncoderNames;
}

export interface RankTask {
  id: number;
  profiles: Uint32Array;
  model: RankingModel;
  snapshotId: number;
  bucket: number;
  servingDepth: number;
}

export type RankTaskResult =
  | { id: number; ok: true; block: Uint8Array; rows: number; lists: Uint8Array; listProfiles: Uint32Array; listEnds: Uint32Array }
  | { id: number; ok: false; error: string };

export type RankedBatch = Extract<RankTaskResult, { ok: true }>;

/**
 * Compiled (dist/), the thread's own module runs as it is; from the sources a thread first
 * needs tsx registered, which rank-thread.worker.js does (threads do not inherit it).
 */
const THREAD_ENTRY = import.meta.url.endsWith('.js') ? new URL('./rank-thread.js', import.meta.url) : new URL('./rank-thread.worker.js', import.meta.url);

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (batch: RankedBatch) => void; reject: (error: Error) => void }>;
}

export class RankPool {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private closed = false;

  constructor(world: World, settings: RankSettings, names: EncoderNames, threads: number) {
    const init: RankThreadInit = {
      follows: world.follows.arrays(),
      ...(world.moments ? { moments: world.moments } : {}),
      signals: world.signals,
      settings,
      names,
    };
    for (let i = 0; i < Math.max(1, threads); i++) this.threads.push(this.spawn(init));
  }

  get size(): number {
    return this.threads.length;
  }

  /** The batch's lists; the least busy thread ranks it. */
  rank(task: Omit<RankTask, 'id'>): Promise<RankedBatch> {
    if (this.closed) return Promise.reject(new Error('the rank pool is closed'));
    if (this.threads.length === 0) return Promise.reject(new Error('every rank thread has died'));
    const thread = this.threads.reduce((best, t) => (t.pending.size < best.pending.size ? t : best));
    const id = this.nextId++;
    return new Promise<RankedBatch>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ ...task, id } satisfies RankTask);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private spawn(init: RankThreadInit): Thread {
    const thread: Thread = { worker: new Worker(THREAD_ENTRY, { workerData: init }), pending: new Map() };
    thread.worker.on('message', (result: RankTaskResult) => {
      const waiting = thread.pending.get(result.id);
      thread.pending.delete(result.id);
      if (!waiting) return;
      if (result.ok) waiting.resolve(result);
      else waiting.reject(new Error(`a rank thread failed: ${result.error}`));
    });
    const fail = (error: Error) => {
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    thread.worker.on('error', fail);
    thread.worker.on('exit', (code) => {
      // A dead thread takes no more batches; the bucket that lost one is retried.
      this.threads.splice(this.threads.indexOf(thread), 1);
      if (!this.closed) fail(new Error(`a rank thread exited (code ${code})`));
    });
    return thread;
  }
}
