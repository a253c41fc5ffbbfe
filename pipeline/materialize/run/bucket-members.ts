/**
 * Which profiles a bucket ranks: those whose id hashes to it (32-bit FNV-1a of the id's UTF-8,
 * modulo the run's bucket count). A function of the id alone, so that worker processes that
 * loaded the world apart (at slightly different moments) agree on every bucket's profiles.
 */
import type { IdIndex } from '../load/id-index.ts';

export function bucketOf(idBytes: Uint8Array, start: number, end: number, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ idBytes[i]!, 0x01000193);
  return (hash >>> 0) % buckets;
}

/** The dense ids of the bucket's profiles, in id order. */
export function bucketMembers(profiles: IdIndex, bucket: number, buckets: number): Uint32Array {
  const members: number[] = [];
  for (let p = 0; p < profiles.size; p++) {
    if (bucketOf(profiles.bytes, profiles.offsets[p]!, profiles.offsets[p + 1]!, buckets) === bucket) members.push(p);
  }
  return Uint32Array.from(members);
}
