/**
 * A rank thread (rank-pool.ts): holds a Ranker on the run's world, whose arrays it shares
 * with the process that loaded it, and answers each task, a batch of profiles, with their
 * lists encoded for ClickHouse and the serving copy (write/list-encoder.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FollowGraph } from '../graph/follow-graph.ts';
import { ListEncoder } from '../write/list-encoder.ts';
import { Ranker } from './ranker.ts';
import type { RankTask, RankThreadInit, RankTaskResult } from './rank-pool.ts';

const init = workerData as RankThreadInit;
const ranker = new Ranker({ follows: new FollowGraph(init.follows), ...(init.moments ? { moments: init.moments } : {}), signals: init.signals }, init.settings);

parentPort!.on('message', (task: RankTask) => {
  try {
    const encoder = new ListEncoder(init.names, task.snapshotId, task.bucket, task.servingDepth);
    for (const p of task.profiles) encoder.add(p, ranker.rank(p, task.model));
    const taken = encoder.take();
    const result: RankTaskResult = { id: task.id, ok: true, ...taken };
    parentPort!.postMessage(result, [taken.block.buffer, taken.lists.buffer, taken.listProfiles.buffer, taken.listEnds.buffer] as ArrayBuffer[]);
  } catch (error) {
    parentPort!.postMessage({ id: task.id, ok: false, error: (error as Error).stack ?? String(error) } satisfies RankTaskResult);
  }
});
