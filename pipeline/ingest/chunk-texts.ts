/**
 * The text of a JSON Lines chunk, kept in Redis beside its job instead of inside the job's
 * payload: the producer writes the file's bytes with one SET and a worker reads them with
 * one GET, so neither BullMQ's JSON.stringify / JSON.parse nor its Lua scripts ever touch
 * the megabytes of a chunk (they cost the producer, Redis and the workers more CPU than
 * validating and inserting the rows did).
 *
 * The text lives exactly as long as its job needs it:
 * - `put` writes it with a time to live (UNCLAIMED_SECONDS), so that a producer dying
 *   before its job is added leaves nothing behind for good;
 * - `claim`, once the job is added, makes it permanent: a waiting job may wait for hours,
 *   a failed one stays retryable (`soulgraph retry`) as long as BullMQ keeps it;
 * - the worker deletes it when the job has completed;
 * - `sweep` deletes the claimed texts whose job is gone (removed failed jobs, a worker that
 *   died between completing a job and deleting its text).
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../shared/redis.ts';

/** Long enough for any producer to add its job; short enough that an abandoned text goes soon. */
export const UNCLAIMED_SECONDS = 24 * 3600;

const TEXT_SEGMENT = ':chunk-text:';

export class ChunkTexts {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** `<prefix>:<queue>:chunk-text:<jobId>`, next to BullMQ's keys of the queue (BullMQ itself never touches it). */
  keyOf(queueName: string, jobId: string): string {
    return `${this.prefix}:${queueName}${TEXT_SEGMENT}${jobId}`;
  }

  async put(queueName: string, jobId: string, bytes: Buffer): Promise<void> {
    await this.redis.set(this.keyOf(queueName, jobId), bytes, 'EX', UNCLAIMED_SECONDS);
  }

  /** Called once the job is in the queue: from now on the text lasts as long as the job. */
  async claim(queueName: string, jobId: string): Promise<void> {
    await this.redis.persist(this.keyOf(queueName, jobId));
  }

  /** The text's bytes, or null when it is not (or no longer) stored. */
  get(queueName: string, jobId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.keyOf(queueName, jobId));
  }

  async delete(queueName: string, jobId: string): Promise<void> {
    await this.redis.del(this.keyOf(queueName, jobId));
  }

  /**
   * Deletes the claimed texts of ingestion jobs that no longer exist; returns how many.
   * A text still unclaimed is left to its time to live: its job may be being added.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    // A SCAN cursor belongs to one server: on a Redis Cluster each master is scanned on its own.
    const servers = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    for (const server of servers) {
      let cursor = '0';
      do {
        const [next, keys] = await server.scan(cursor, 'MATCH', `${this.prefix}:ingest-*${TEXT_SEGMENT}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) removed += await this.removeOrphans(keys);
      } while (cursor !== '0');
    }
    return removed;
  }

  private async removeOrphans(keys: string[]): Promise<number> {
    const checks = this.redis.pipeline();
    for (const key of keys) checks.ttl(key).exists(this.jobKeyOf(key));
    const answers = (await checks.exec()) ?? [];
    const orphans = keys.filter((_, i) => answers[2 * i]?.[1] === -1 && answers[2 * i + 1]?.[1] === 0);
    if (orphans.length > 0) await this.redis.del(...orphans);
    return orphans.length;
  }

  /** The BullMQ job hash a text key belongs to: `<prefix>:<queue>:<jobId>`. */
  private jobKeyOf(textKey: string): string {
    const at = textKey.lastIndexOf(TEXT_SEGMENT);
    return `${textKey.slice(0, at)}:${textKey.slice(at + TEXT_SEGMENT.length)}`;
  }
}
