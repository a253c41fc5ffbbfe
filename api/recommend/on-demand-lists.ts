/**
 * Recommendations for a caller the newest snapshot has no list for (a user newer than the
 * nightly run): the API asks the pipeline for them (a job on the cold-start queue, shared by
 * concurrent requests for the same user) and waits, within a bound, until the worker has
 * put the list in the serving copy. The API itself never writes ClickHouse.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { Config } from '../../shared/config.ts';
import { COLD_START_QUEUE, coldStartJobId, type ColdStartJob } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import type { ServedLists } from './served-lists.ts';

export interface OnDemandLists {
  /** True once the list is in the serving copy; false if it was not ready within COLD_START_WAIT_MS. */
  request(snapshotId: number, profileId: string): Promise<boolean>;
  close(): Promise<void>;
}

const POLL_MS = 50;

export function createOnDemandLists(config: Config, served: ServedLists): OnDemandLists {
  const queue = new Queue(COLD_START_QUEUE, { connection: redisConnection(config, 'producer'), prefix: config.QUEUE_PREFIX });
  return {
    async request(snapshotId, profileId) {
      const job: ColdStartJob = { snapshotId, profileId };
      // Finished jobs, failed ones too, are removed at once: a job kept under the fixed id would
      // swallow every later request for this user. The worker logs failures.
      await queue.add('cold-start', job, {
        jobId: coldStartJobId(job),
        attempts: 2,
        backoff: { type: 'fixed', delay: 500 },
        removeOnComplete: true,
        removeOnFail: true,
      });
      const deadline = Date.now() + config.COLD_START_WAIT_MS;
      while (Date.now() < deadline) {
        if (await served.exists(snapshotId, profileId)) return true;
        await sleep(POLL_MS);
      }
      return served.exists(snapshotId, profileId);
    },
    close: () => queue.close(),
  };
}
