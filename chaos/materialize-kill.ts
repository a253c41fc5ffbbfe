/**
 * The workers process killed with -9 while it materializes a new snapshot (after its first
 * bucket): the API keeps answering from the snapshot before, the killed run is resumed (or
 * given up) once another workers process starts, and the next run succeeds and is served.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { bucketsDone, type RunView } from '../pipeline/materialize/run/run-watch.ts';
import { call, OK, outcomes, startLoad } from './client-load.ts';
import type { ScenarioRow } from './scenario-row.ts';
import { snapshotOfPage, type ServedWorld } from './served-world.ts';

/** Longer than the API's snapshot cache (SNAPSHOT_CACHE_SECONDS, 5 s): the newest snapshot is served by then. */
const CACHE_PASSED_MS = 7_000;

export async function killMaterialization(world: ServedWorld, rate: number): Promise<ScenarioRow> {
  const row: ScenarioRow = { scenario: 'kill -9 workers mid-materialization', notes: [], problems: [] };
  const before = await world.newestReadySnapshot();
  const load = startLoad(world.apiUrl, world.requests, rate);
  try {
    const runId = await world.enqueueRun();
    let killedAt: RunView | undefined;
    const workers = world.workers();
    // Watches until the first bucket is done, then kills (the watch goes on to the run's end or the kill).
    const watching = world.watchRun(runId, (view) => {
      if (killedAt || view.state !== 'buckets' || bucketsDone(view) < 1 || bucketsDone(view) >= view.buckets.length) return;
      killedAt = view;
      workers.kill('SIGKILL');
    });
    const exit = await Promise.race([workers.exited, watching.then(() => undefined)]);
    if (!exit || !killedAt) {
      row.problems.push(`the run ended (${(await watching).state}) before a bucket was done and another was left: nothing was killed`);
      return row;
    }
    const killed: RunView = killedAt;
    row.notes.push(`workers killed (${exit.signal}) with ${bucketsDone(killed)} of ${killed.buckets.length} buckets of snapshot ${killed.snapshotId} done`);

    await sleep(CACHE_PASSED_MS);
    const served = await servedSnapshots(world);
    if (served.length === 0) row.problems.push('no recommend page named its snapshot (no cursor): nothing to check');
    else if (served.some((s) => s !== before)) row.problems.push(`recommend read snapshots [${served.join(', ')}] while the killed run's was unfinished; the one before was ${before}`);
    else row.notes.push(`with the run killed, recommend read snapshot ${before} (the one before)`);

    const resumeStarted = Date.now();
    await world.startWorkers();
    const resumed = await watching;
    row.notes.push(`the killed run ${resumed.state === 'done' ? 'was resumed and finished' : `ended ${resumed.state}: ${resumed.error}`} ${((Date.now() - resumeStarted) / 1000).toFixed(0)} s after new workers started`);
    const next = await world.watchRun(await world.enqueueRun());
    if (next.state !== 'done') row.problems.push(`the next run ended ${next.state}: ${next.error}`);
    else row.notes.push(`the next run made snapshot ${next.snapshotId}`);

    await sleep(CACHE_PASSED_MS);
    const newest = await world.newestReadySnapshot();
    const afterwards = await servedSnapshots(world);
    if (afterwards.some((s) => s !== newest)) row.problems.push(`after the next run recommend read snapshots [${afterwards.join(', ')}], the newest ready is ${newest}`);
    return row;
  } finally {
    const answers = await load.stop();
    row.codes = outcomes(answers);
    const failed = answers.filter((a) => a.outcome !== OK);
    if (failed.length > 0) row.problems.push(`${failed.length} answers were not 200 (${Object.keys(outcomes(failed)).join(', ')}) though ClickHouse and Redis were up`);
  }
}

/** The snapshots recommend pages came from, over a few callers. */
async function servedSnapshots(world: ServedWorld): Promise<(number | undefined)[]> {
  const answers = await Promise.all(world.recommendRequests.slice(0, 10).map((request) => call(world.apiUrl, request)));
  const snapshots = answers.filter((a) => a.outcome === OK).map((a) => snapshotOfPage(a.body));
  return [...new Set(snapshots.filter((s) => s !== undefined))];
}
