/**
 * What the API records goes through the pipeline, never straight into ClickHouse: one
 * record becomes a one-row ingest job on its kind's queue, validated and written by the
 * same workers as any file.
 */
import { Queue } from 'bullmq';
import type { Config } from '../../shared/config.ts';
import { ingestJobOptions, ingestQueueName, type IngestJobPayload } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import type { KindName } from '../../shared/records/kinds.ts';

export interface PipelineProducer {
  enqueue(kind: KindName, record: Record<string, unknown>, source: string): Promise<void>;
  close(): Promise<void>;
}

export function createPipelineProducer(config: Config, kinds: readonly KindName[]): PipelineProducer {
  const queues = new Map(
    kinds.map((kind) => [
      kind,
      new Queue(ingestQueueName(kind), {
        connection: redisConnection(config, 'producer'),
        prefix: config.QUEUE_PREFIX,
        defaultJobOptions: ingestJobOptions(config),
      }),
    ]),
  );
  return {
    async enqueue(kind, record, source) {
      const queue = queues.get(kind);
      if (!queue) throw new Error(`the API has no queue for ${kind}`);
      const job: IngestJobPayload = { kind, source, format: 'canonical', text: JSON.stringify(record), firstLine: 1 };
      await queue.add('record', job);
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
