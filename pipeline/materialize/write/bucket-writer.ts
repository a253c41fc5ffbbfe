/**
 * One bucket's lists, ranked on the process's rank threads (rank/rank-pool.ts) in batches and
 * written as they come: their rows into `recommendations` in Native blocks, streamed by
 * INSERT_STREAMS INSERTs side by side (ClickHouse sorts and compresses each stream on its own
 * core), and each profile's first entries into the serving copy. At most a few batches wait
 * between the threads and ClickHouse, so a bucket's memory does not grow with its size.
 */
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import type { ServingWriter, StoredList } from '../../serving/serving-writer.ts';
import type { World } from '../graph/world.ts';
import type { RankPool } from '../rank/rank-pool.ts';
import type { RankingModel } from '../rank/ranking-model.ts';
import { BlockQueue } from './block-queue.ts';
import { RECOMMENDATION_COLUMNS } from './list-encoder.ts';

/** Profiles a rank thread takes at a time. */
const BATCH = 500;
/** INSERTs a bucket streams its rows through at once. */
const INSERT_STREAMS = 2;

export interface BucketTarget {
  snapshotId: number;
  bucket: number;
  servingDepth: number;
}

export interface BucketWritten {
  profiles: number;
  rows: number;
  /** Seconds until every batch was ranked, and until ClickHouse and the serving copy had them all. */
  rankSeconds: number;
  seconds: number;
}

export async function writeBucket(
  ch: ClickHouse,
  serving: ServingWriter,
  pool: RankPool,
  world: World,
  members: Uint32Array,
  model: RankingModel,
  target: BucketTarget,
): Promise<BucketWritten> {
  const started = performance.now();
  const batches = Math.ceil(members.length / BATCH);
  // Each stream gets a batch at least: current ClickHouse refuses an INSERT with no rows.
  const queues = Array.from({ length: Math.min(INSERT_STREAMS, batches) }, () => new BlockQueue(2));
  const inserts = queues.map((queue) =>
    ch.insertBinary('recommendations', RECOMMENDATION_COLUMNS, 'Native', queue).catch((error: Error) => {
      for (const q of queues) q.fail(error);
      throw error;
    }),
  );
  let rows = 0;
  let next = 0;
  let rankSeconds = 0;
  const publishing: Promise<void>[] = [];
  // Each lane ranks one batch after another; twice as many lanes as threads keep them busy.
  const lane = async () => {
    for (let batch = next++; batch < batches; batch = next++) {
      const profiles = members.slice(batch * BATCH, (batch + 1) * BATCH);
      const ranked = await pool.rank({ profiles, model, snapshotId: target.snapshotId, bucket: target.bucket, servingDepth: target.servingDepth });
      rows += ranked.rows;
      publishing.push(serving.lists(storedLists(world, target.snapshotId, ranked.lists, ranked.listProfiles, ranked.listEnds)));
      await queues[batch % queues.length]!.push(Buffer.from(ranked.block.buffer, ranked.block.byteOffset, ranked.block.byteLength));
    }
  };
  let failure: unknown;
  try {
    await Promise.all(Array.from({ length: pool.size * 2 }, lane));
    rankSeconds = (performance.now() - started) / 1000;
  } catch (error) {
    failure = error;
  } finally {
    for (const queue of queues) queue.end();
  }
  // Every write is waited for, failed or not, before the job answers: a retry drops the
  // bucket's partition first, and must not race a write still under way.
  const settled = await Promise.allSettled([...inserts, ...publishing]);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure !== undefined) throw failure;
  if (rejected) throw rejected.reason;
  return { profiles: members.length, rows, rankSeconds, seconds: (performance.now() - started) / 1000 };
}

/** A batch's served lists as the serving writer stores them. */
function storedLists(world: World, snapshotId: number, texts: Uint8Array, profiles: Uint32Array, ends: Uint32Array): StoredList[] {
  const lists: StoredList[] = [];
  const bytes = Buffer.from(texts.buffer, texts.byteOffset, texts.byteLength);
  let start = 0;
  for (let i = 0; i < profiles.length; i++) {
    lists.push({ snapshotId, profileId: world.profiles.ids[profiles[i]!]!, text: bytes.subarray(start, ends[i]!) });
    start = ends[i]!;
  }
  return lists;
}
