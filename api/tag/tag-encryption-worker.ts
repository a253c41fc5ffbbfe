/**
 * The body of a tag-encryption worker thread: a fresh symmetric key, AES-GCM over the
 * tags, and the key's Lit-format IBE to the network key (two pairings' worth of work, tens
 * of milliseconds) happen here, off the API's event loop. The symmetric key never leaves
 * this thread.
 */
import { parentPort } from 'node:worker_threads';
import { publicKeyFromHex, type G1Point } from '../../shared/tag-crypto/lit-ibe.ts';
import { encryptTags, type TagAudience } from '../../shared/tag-crypto/tag-ciphertext.ts';

export interface EncryptionTask {
  id: number;
  tags: string[];
  audience: TagAudience;
  networkKeyHex: string;
}

export type EncryptionResult =
  | { id: number; ok: true; encryptedString: string; encryptedSymmetricKey: string }
  | { id: number; ok: false; error: string };

const keys = new Map<string, G1Point>();

parentPort!.on('message', async (task: EncryptionTask) => {
  try {
    let key = keys.get(task.networkKeyHex);
    if (!key) keys.set(task.networkKeyHex, (key = publicKeyFromHex(task.networkKeyHex)));
    const encrypted = await encryptTags(task.tags, task.audience, key);
    parentPort!.postMessage({ id: task.id, ok: true, ...encrypted } satisfies EncryptionResult);
  } catch (error) {
    parentPort!.postMessage({ id: task.id, ok: false, error: (error as Error).message } satisfies EncryptionResult);
  }
});
