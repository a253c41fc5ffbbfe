/**
 * Lists a snapshot lacks, computed when the API asks (a user who signed up after the run, or
 * a list the serving copy lost): the same ranker as the nightly buckets, on the world this
 * worker process holds (the newest it loaded: resident between runs), with the caller's own
 * facts read live (load/own-facts-reader.ts) and the snapshot's ranking model. The rows go
 * into the snapshot under the bucket ON_DEMAND_BUCKET, so that paging and cursors work as for
 * everyone else, and the list into the serving copy, which is what the API waits for.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../../shared/config.ts';
import { coldStartJobSchema } from '../../../shared/queues.ts';
import { publishLists } from '../../serving/list-publisher.ts';
import type { ServingWriter } from '../../serving/serving-writer.ts';
import { engineSettings, materializeQuerySettings } from '../engine-settings.ts';
import { readOwnFacts } from '../load/own-facts-reader.ts';
import { rankingModelOf } from '../publish/ranking-models.ts';
import { Ranker, type RankedList } from '../rank/ranker.ts';
import { ListEncoder, RECOMMENDATION_COLUMNS } from '../write/list-encoder.ts';
import type { LoadedWorld, WorldCache } from './loaded-world.ts';

/** The bucket number of rows computed on demand (see the recommendations table). */
export const ON_DEMAND_BUCKET = 65_535;

const listedRow = z.object({ nightly: z.coerce.number(), on_demand: z.coerce.number() });

export interface OnDemandResult {
  rows: number;
  /** False when the snapshot already had the profile's list (the serving copy had lost it): republished, not computed. */
  computed: boolean;
}

export interface OnDemandDeps {
  config: Config;
  clickhouse: ClickHouse;
  serving: ServingWriter;
  worlds: WorldCache;
}

/** The on-demand job: the list, computed unless the snapshot has it, then in the serving copy (an empty list too, so the API stops asking). */
export async function processOnDemand(deps: OnDemandDeps, job: Job): Promise<OnDemandResult> {
  const parsed = coldStartJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid on-demand payload: ${z.prettifyError(parsed.error)}`);
  return listOnDemand(deps, parsed.data.snapshotId, parsed.data.profileId);
}

export async function listOnDemand(deps: OnDemandDeps, snapshotId: number, profileId: string): Promise<OnDemandResult> {
  const { clickhouse: ch, config } = deps;
  const loaded = (await deps.worlds.newest()) ?? (await deps.worlds.forSnapshot(snapshotId));
  const settings = engineSettings(config);
  // The caller's facts are read while the snapshot is asked whether it has the list: the
  // usual answer is no, and a newcomer waits for both.
  const [listed, own] = await Promise.all([
    listedRows(ch, snapshotId, profileId),
    readOwnFacts(ch, loaded.world, profileId, settings.load, materializeQuerySettings(config)),
  ]);
  // A list the snapshot holds (a nightly one, or one an earlier attempt computed) is republished as it is.
  if (listed.nightly + listed.onDemand > 0) {
    await publishLists(ch, deps.serving, snapshotId, sql`profile_id = ${profileId}`, config.SERVING_DEPTH, [profileId]);
    return { rows: listed.nightly + listed.onDemand, computed: false };
  }
  const encoder = new ListEncoder(loaded.names, snapshotId, ON_DEMAND_BUCKET, config.SERVING_DEPTH);
  // No profile has that id (yet): an empty list, so that the API stops asking.
  encoder.add(profileId, own ? rankerOf(loaded).rank(own, await modelOf(ch, snapshotId)) : EMPTY_LIST);
  const taken = encoder.take();
  if (taken.rows > 0) await ch.insertBinary('recommendations', RECOMMENDATION_COLUMNS, 'Native', [Buffer.from(taken.block)]);
  await deps.serving.lists([{ snapshotId, profileId, text: Buffer.from(taken.lists) }]);
  return { rows: taken.rows, computed: true };
}

const EMPTY_LIST: RankedList = {
  length: 0,
  candidate: new Uint32Array(0),
  score: new Float64Array(0),
  kind: new Uint8Array(0),
  subject: new Int32Array(0),
  chainId: new Uint32Array(0),
  social: new Float64Array(0),
  counterparty: new Float64Array(0),
  nft: new Float64Array(0),
  graph: new Float64Array(0),
};

/** One ranker per world, on this process's main thread: a list on demand is a few milliseconds. */
const rankers = new WeakMap<LoadedWorld, Ranker>();
function rankerOf(loaded: LoadedWorld): Ranker {
  let ranker = rankers.get(loaded);
  if (!ranker) rankers.set(loaded, (ranker = new Ranker(loaded.world, loaded.settings)));
  return ranker;
}

const models = new Map<number, Awaited<ReturnType<typeof rankingModelOf>>>();
async function modelOf(ch: ClickHouse, snapshotId: number) {
  let model = models.get(snapshotId);
  if (!model) {
    model = await rankingModelOf(ch, snapshotId);
    models.clear();
    models.set(snapshotId, model);
  }
  return model;
}

/** The profile's rows in the snapshot: from the nightly run, and computed on demand. */
async function listedRows(ch: ClickHouse, snapshotId: number, profileId: string): Promise<{ nightly: number; onDemand: number }> {
  const [row] = await ch.query(
    sql`SELECT countIf(bucket != ${ON_DEMAND_BUCKET}) AS nightly, countIf(bucket = ${ON_DEMAND_BUCKET}) AS on_demand
        FROM recommendations WHERE snapshot_id = ${snapshotId} AND profile_id = ${profileId}`,
    listedRow,
  );
  return { nightly: row?.nightly ?? 0, onDemand: row?.on_demand ?? 0 };
}
