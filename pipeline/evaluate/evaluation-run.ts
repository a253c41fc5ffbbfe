/**
 * The offline quality evaluation (`soulgraph eval`): a real follow graph is loaded as
 * in-service follows with some edges hidden (at random, each user's newest, or as given),
 * the production materialization runs on the rest, and its lists are scored against the
 * hidden edges next to link-prediction baselines.
 *
 * It works in a database and queue prefix of its own (<database>_eval, <prefix>-eval), so
 * that neither the service's data nor its workers are touched.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { migrate } from '../../shared/clickhouse/migrate.ts';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { redisConnection, servingRedisConnection, servingRedisUrl } from '../../shared/redis.ts';
import { runIngest } from '../ingest/ingest-run.ts';
import { readPathBudget } from '../materialize/path-budget.ts';
import { readPathWeightFit } from '../materialize/path-weight-fit.ts';
import { readRecencyFit } from '../materialize/path-recency.ts';
import { readUnnamedPathsFit } from '../materialize/unnamed-paths-fit.ts';
import { bucketsDone, enqueueRun, watchRun } from '../materialize/run-watch.ts';
import { readScoringFit } from '../materialize/scoring-fit.ts';
import { startWorkers } from '../workers.ts';
import { EdgeListReader, oneWayFollows } from './follow-graph.ts';
import { givenSplit, randomSplit, timeSplit, type HoldoutSplit } from './holdout-split.ts';
import { BASELINES, TrainingGraph } from './link-prediction-baselines.ts';
import { qualityChartSvg, qualityTableMarkdown, type MethodResult } from './quality-chart.ts';
import { averageMetrics, perUserMetricsAtK } from './ranking-metrics.ts';
import { hiddenFollowReach, reachLine, reachTableMarkdown, type HiddenFollowReach } from './hidden-follow-reach.ts';
import { compareWithBestBaseline, comparisonLine, comparisonTableMarkdown, type BaselineComparison } from './best-baseline.ts';

export interface EvaluationOptions {
  /** The graph, split here (`split`, `holdout`, `seed`); or `train` and `test` for a split made elsewhere. */
  edgesFile?: string;
  trainFile?: string;
  testFile?: string;
  /** random: each edge hidden with probability `holdout`; time: each user's newest `holdout` share. */
  split: 'random' | 'time';
  /** Each line is a pair, hidden or kept both ways together. */
  undirected: boolean;
  /** Each file's first line names its columns. */
  header?: boolean;
  /** Keep one direction of each pair that follows both ways (a directed graph, split here). */
  oneWay?: boolean;
  holdout: number;
  seed: number;
  ks: number[];
  outDir: string;
  /** Writes every scored user's ranked list, for every method, as TSV (method, user, rank, candidate). */
  listsFile?: string;
  /** Evaluate at most this many users (a deterministic sample); default all with a hidden edge. */
  maxUsers?: number;
  keepDatabase?: boolean;
  say: (line: string) => void;
}

export interface EvaluationReport {
  graph: { nodes: number; edges: number; hidden: number; users: number };
  results: MethodResult[];
  /** The recommender against the best baseline per measure, paired on the same users. */
  comparisons: BaselineComparison[];
  table: string;
  files: { table: string; chart: string };
  /** Scored users with a follow either way in training whose list from the recommender was empty. */
  emptyLists: number;
  /** Where the hidden follows lie (returns, two hops, farther), and what each method's first max(k) find of each. */
  reach: HiddenFollowReach;
}

/** The name the recommender's lists go by in the report. */
export const OUR_SCORER = 'soulgraph';

export async function runEvaluation(config: Config, logger: Logger, o: EvaluationOptions): Promise<EvaluationReport> {
  const { nodeIds, split, describe } = await splitOf(o);
  const { train, hidden } = split;
  const relevant = sampleUsers(hidden, o.maxUsers);
  const hiddenEdges = [...hidden.values()].reduce((n, s) => n + s.size, 0);
  o.say(`${nodeIds.length} nodes, ${train.from.length + hiddenEdges} follows; ${hiddenEdges} hidden (${describe}); evaluating ${relevant.size} users`);

  const evalConfig: Config = { ...config, CLICKHOUSE_DATABASE: `${config.CLICKHOUSE_DATABASE}_eval`, QUEUE_PREFIX: `${config.QUEUE_PREFIX}-eval` };
  const maxK = Math.max(...o.ks);
  if (maxK > config.REC_TOP_K) throw new Error(`--k ${maxK} is more than REC_TOP_K (${config.REC_TOP_K}) recommendations per profile`);
  const ours = await recommenderLists(evalConfig, logger, nodeIds, train, maxK, o);

  o.say(`baselines: ${BASELINES.join(', ')}`);
  const training = new TrainingGraph(nodeIds.length, train);
  const lists = new Map<string, Map<number, number[]>>([[OUR_SCORER, ours]]);
  for (const baseline of BASELINES) lists.set(baseline, new Map([...relevant.keys()].map((u) => [u, training.topK(baseline, u, maxK)])));
  const perUser = new Map([...lists].map(([method, byUser]) => [method, o.ks.map((k) => perUserMetricsAtK(byUser, relevant, k))]));
  const results: MethodResult[] = [...perUser].map(([method, byK]) => ({ method, metrics: byK.map((rows, i) => averageMetrics(rows, o.ks[i]!)) }));
  const comparisons = compareWithBestBaseline(perUser, OUR_SCORER, o.ks);
  if (o.listsFile) await writeLists(o.listsFile, nodeIds, relevant, lists, maxK);

  const empty = emptyListsOfConnected(train, relevant, ours);
  o.say(`${OUR_SCORER}: ${empty} of the scored users with a follow either way in training got an empty list`);
  for (const c of comparisons) o.say(comparisonLine(c, OUR_SCORER));
  const reach = hiddenFollowReach(training, relevant, lists, maxK);
  o.say(reachLine(reach));

  const table = qualityTableMarkdown(results);
  const source = o.edgesFile ?? o.trainFile!;
  const name = o.edgesFile
    ? `${path.basename(source).replace(/\.[^.]+$/, '')}-${o.split === 'time' ? 'time' : 'holdout'}${o.holdout}-seed${o.seed}${o.undirected ? '-undirected' : ''}${o.oneWay ? '-one-way' : ''}`
    : `${path.basename(source).replace(/\.[^.]+$/, '')}-given`;
  const files = { table: path.join(o.outDir, `${name}.md`), chart: path.join(o.outDir, `${name}.svg`) };
  const title = `${path.basename(source)}: ${relevant.size} users, ${describe}`;
  const against = comparisonTableMarkdown(comparisons, OUR_SCORER);
  await writeFile(
    files.table,
    `${title}\n\n${table}\n\nAgainst the best baseline, paired on the same users:\n\n${against}\n\n` +
      `Scored users with a follow either way in training whose ${OUR_SCORER} list was empty: ${empty}.\n\n` +
      `Where the hidden follows lie in training (a return: the followee follows the user; two hops: they share a neighbour, follows either way), ` +
      `and what each method's first ${maxK} find of each kind, as mean shares per user (a method's "in all" is its R@${maxK}):\n\n${reachTableMarkdown(reach)}\n\n` +
      `![chart](${path.basename(files.chart)})\n`,
  );
  await writeFile(files.chart, qualityChartSvg(title, results));
  return { graph: { nodes: nodeIds.length, edges: train.from.length + hiddenEdges, hidden: hiddenEdges, users: relevant.size }, results, comparisons, table, files, emptyLists: empty, reach };
}

/** Scored users who follow or are followed by someone in training, yet got no recommendation. */
function emptyListsOfConnected(train: HoldoutSplit['train'], relevant: ReadonlyMap<number, unknown>, lists: ReadonlyMap<number, readonly number[]>): number {
  const connected = new Set<number>([...train.from, ...train.to]);
  return [...relevant.keys()].filter((u) => connected.has(u) && (lists.get(u)?.length ?? 0) === 0).length;
}

/** The training follows and the hidden ones, as the options ask, with a few words on how. */
async function splitOf(o: EvaluationOptions): Promise<{ nodeIds: string[]; split: HoldoutSplit; describe: string }> {
  const reader = new EdgeListReader(o.undirected, o.header ?? false);
  const kind = o.undirected ? 'pairs' : 'edges';
  if (o.trainFile && o.testFile) {
    const train = await reader.read(o.trainFile);
    const test = await reader.read(o.testFile);
    return { nodeIds: reader.nodeIds, split: givenSplit(train, test), describe: `given split: ${path.basename(o.trainFile)} / ${path.basename(o.testFile)}` };
  }
  const read = await reader.read(o.edgesFile!);
  const graph = o.oneWay ? oneWayFollows(read) : read;
  const oneWay = o.oneWay ? ', one direction of each mutual pair' : '';
  if (o.split === 'time') {
    return { nodeIds: reader.nodeIds, split: timeSplit(graph, o.holdout, o.seed), describe: `each user's newest ${o.holdout * 100}% of follows hidden${oneWay}` };
  }
  return { nodeIds: reader.nodeIds, split: randomSplit(graph, o.holdout, o.seed), describe: `${o.holdout * 100}% of ${kind} hidden at random, seed ${o.seed}${oneWay}` };
}

/** Every scored user's list per method, with the graph's own node ids. */
async function writeLists(
  file: string,
  nodeIds: readonly string[],
  relevant: ReadonlyMap<number, ReadonlySet<number>>,
  lists: ReadonlyMap<string, ReadonlyMap<number, readonly number[]>>,
  k: number,
): Promise<void> {
  const lines = ['method\tuser\trank\tcandidate'];
  for (const [method, byUser] of lists) {
    for (const user of [...relevant.keys()].sort((a, b) => a - b)) {
      (byUser.get(user) ?? []).slice(0, k).forEach((candidate, i) => lines.push(`${method}\t${nodeIds[user]}\t${i + 1}\t${nodeIds[candidate]}`));
    }
  }
  await writeFile(file, `${lines.join('\n')}\n`);
}

/** Users with hidden edges, at most `max` of them, picked by a stable hash of their index. */
function sampleUsers(hidden: Map<number, Set<number>>, max?: number): Map<number, Set<number>> {
  if (max === undefined || hidden.size <= max) return hidden;
  const order = [...hidden.keys()].sort((a, b) => Math.imul(a, 0x9e3779b1) - Math.imul(b, 0x9e3779b1) || a - b);
  return new Map(order.slice(0, max).map((u) => [u, hidden.get(u)!]));
}

/** What the run fitted to the training graph, as one line. */
async function fitsOf(config: Config, snapshotId: number): Promise<string> {
  const ch = createClickHouse(config);
  try {
    const follows = await readScoringFit(ch, snapshotId);
    const budget = await readPathBudget(ch, snapshotId);
    const paths = await readPathWeightFit(ch, snapshotId);
    const recency = await readRecencyFit(ch, snapshotId);
    const unnamed = await readUnnamedPathsFit(ch, snapshotId);
    return (
      `fitted: follows-you weight ${follows?.follows_you_weight.toFixed(2)} (${follows?.returned} of ${follows?.follows} follows returned); ` +
      `${budget?.paths_per_profile} paths per profile (of ${budget?.paths_in_all} in all); path weight ${paths?.path_weight} (of ${paths?.held_out} held-out follows, ` +
      `found in the first places by adamic-adar ${paths?.found_adamic_adar} (${paths?.only_adamic_adar} only by it), ` +
      `by resource-allocation ${paths?.found_resource_allocation} (${paths?.only_resource_allocation} only by it)); ` +
      `path recency ${recency?.recency ? 'on' : 'off'} (found without it ${recency?.found_plain} (${recency?.only_plain} only so), with it ${recency?.found_recent} (${recency?.only_recent} only so)); ` +
      `unnamed paths ${unnamed?.unnamed ? 'on' : 'off'} (found without them ${unnamed?.found_named} (${unnamed?.only_named} only so), with them ${unnamed?.found_unnamed} (${unnamed?.only_unnamed} only so))`
    );
  } finally {
    await ch.close();
  }
}

/**
 * Loads the training edges through the real pipeline into a fresh evaluation database,
 * runs the production materialization, and reads back every profile's top `k`.
 */
async function recommenderLists(
  config: Config,
  logger: Logger,
  nodeIds: readonly string[],
  train: HoldoutSplit['train'],
  k: number,
  o: EvaluationOptions,
): Promise<Map<number, number[]>> {
  const ch = createClickHouse(config, { noDatabase: true });
  const work = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-eval-'));
  // A clean start: the database is made anew (snapshot ids start at 1 again), so jobs an
  // earlier run left under the same ids (one that died, or kept with --keep-database)
  // would be taken for this run's.
  await deleteRedisKeys(config);
  const workers = await startWorkers(config, logger, { kinds: ['profiles', 'follows'], maintenance: false, materialize: true });
  try {
    await ch.command(sql`DROP DATABASE IF EXISTS ${identifier(config.CLICKHOUSE_DATABASE)}`);
    await migrate(config);
    const node = (i: number) => `n${nodeIds[i]}`;
    const profiles = path.join(work, 'profiles.jsonl');
    const follows = path.join(work, 'follows.jsonl');
    await writeFile(profiles, nodeIds.map((_, i) => JSON.stringify({ profileId: node(i), name: node(i) })).join('\n'));
    await writeFile(
      follows,
      Array.from(train.from, (a, e) => JSON.stringify({ followerProfileId: node(a), followeeProfileId: node(train.to[e]!), followedAt: train.timeRank?.[e] ?? 0 })).join('\n'),
    );
    for (const [kind, file] of [['profiles', profiles], ['follows', follows]] as const) {
      const summary = await runIngest(config, { kind, files: [file], format: 'canonical', chunkRows: 20_000 });
      o.say(`loaded ${summary.accepted} ${kind} (${summary.rejected} rejected)`);
    }
    const started = Date.now();
    const view = await watchRun(config, await enqueueRun(config, 'eval'), (v) => {
      const done = bucketsDone(v);
      if (v.buckets.length > 0) logger.debug({ done, buckets: v.buckets.length }, 'materializing');
    });
    if (view.state !== 'done') throw new Error(`the materialization failed: ${view.error}`);
    o.say(`materialized snapshot ${view.result!.snapshotId} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${view.result!.rows} recommendations`);
    o.say(await fitsOf(config, view.result!.snapshotId));
    return await readLists(config, nodeIds, view.result!.snapshotId, k);
  } finally {
    await workers.close();
    if (!o.keepDatabase) {
      await ch.command(sql`DROP DATABASE IF EXISTS ${identifier(config.CLICKHOUSE_DATABASE)}`);
      await deleteRedisKeys(config);
    }
    await ch.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** The evaluation's queues and serving copy, all under its own prefix, in both Redis servers when they differ. */
async function deleteRedisKeys(config: Config): Promise<void> {
  await deletePrefixedKeys(config, new Redis({ ...redisConnection(config, 'producer'), lazyConnect: true }));
  if (servingRedisUrl(config) !== config.REDIS_URL) await deletePrefixedKeys(config, new Redis({ ...servingRedisConnection(config, 'producer'), lazyConnect: true }));
}

async function deletePrefixedKeys(config: Config, redis: Redis): Promise<void> {
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.QUEUE_PREFIX}:*`, 'COUNT', 1_000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function readLists(config: Config, nodeIds: readonly string[], snapshotId: number, k: number): Promise<Map<number, number[]>> {
  const index = new Map(nodeIds.map((id, i) => [`n${id}`, i]));
  const lists = new Map<number, number[]>();
  const ch = createClickHouse(config);
  try {
    const rows = ch.stream(
      sql`SELECT profile_id, candidate_id FROM recommendations
          WHERE snapshot_id = ${snapshotId} AND rank <= ${k} ORDER BY profile_id, rank`,
      z.object({ profile_id: z.string(), candidate_id: z.string() }),
    );
    for await (const row of rows) {
      const user = index.get(row.profile_id)!;
      let list = lists.get(user);
      if (!list) lists.set(user, (list = []));
      list.push(index.get(row.candidate_id)!);
    }
  } finally {
    await ch.close();
  }
  return lists;
}
