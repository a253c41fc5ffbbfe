/**
 * Worker threads that encrypt tags (api/tag/tag-encryption-worker.ts), so that a cache miss
 * costs its caller tens of milliseconds but blocks nobody else's request. Each task goes
 * to the worker with the fewest tasks in flight; a worker that dies fails its tasks and
 * is replaced.
 */
import { Worker } from 'node:worker_threads';
import type { EncryptedTags, TagAudience } from '../../shared/tag-crypto/tag-ciphertext.ts';
import type { EncryptionResult, EncryptionTask } from './tag-encryption-worker.ts';

export interface TagEncryptionPool {
  encrypt(tags: string[], audience: TagAudience): Promise<EncryptedTags>;
  close(): Promise<void>;
}

/**
 * Compiled (dist/), the worker's own module runs as it is; from the sources, a worker thread
 * first needs tsx registered, which tag-encryption.worker.js does (threads do not inherit it).
 */
const WORKER_ENTRY = import.meta.url.endsWith('.js')
  ? new URL('./tag-encryption-worker.js', import.meta.url)
  : new URL('./tag-encryption.worker.js', import.meta.url);

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (value: EncryptedTags) => void; reject: (error: Error) => void }>;
}

export function createTagEncryptionPool(threads: number, networkKeyHex: string): TagEncryptionPool {
  let nextId = 1;
  let closed = false;
  const slots: Slot[] = [];

  function spawn(position: number): void {
    const slot: Slot = { worker: new Worker(WORKER_ENTRY), pending: new Map() };
    slot.worker.on('message', (result: EncryptionResult) => {
      const waiting = slot.pending.get(result.id);
      slot.pending.delete(result.id);
      if (!waiting) return;
      if (result.ok) waiting.resolve({ encryptedString: result.encryptedString, encryptedSymmetricKey: result.encryptedSymmetricKey });
      else waiting.reject(new Error(`tag encryption failed: ${result.error}`));
    });
    const fail = (error: Error) => {
      for (const waiting of slot.pending.values()) waiting.reject(error);
      slot.pending.clear();
      if (!closed && slots[position] === slot) spawn(position);
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => fail(new Error(`tag encryption worker exited (code ${code})`)));
    // Idle workers must not keep the process alive.
    slot.worker.unref();
    slots[position] = slot;
  }
  for (let i = 0; i < threads; i++) spawn(i);

  return {
    encrypt(tags, audience) {
      if (closed) return Promise.reject(new Error('tag encryption pool is closed'));
      const slot = slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
      const id = nextId++;
      return new Promise<EncryptedTags>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.postMessage({ id, tags, audience, networkKeyHex } satisfies EncryptionTask);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
