/**
 * The offline quality evaluation (`soulgraph eval`): a real follow graph with some edges
 * hidden (at random, each user's newest, or as given), the production engine (the graph, fit
 * and ranker of pipeline/materialize) on the rest, and its lists scored against the hidden
 * edges next to link-prediction baselines computed on the same graph. In memory: neither the
 * service's data nor its workers are touched.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../shared/config.ts';
import { engineSettings, rankSettingsOf } from '../materialize/engine-settings.ts';
import { fitModel, type FitReport } from '../materialize/fit/model-fit.ts';
import { FollowGraph } from '../materialize/graph/follow-graph.ts';
import { followMoments } from '../materialize/graph/follow-moments.ts';
import { NO_SIGNALS } from '../materialize/graph/signal-graphs.ts';
import { FEATURES } from '../materialize/rank/features.ts';
import { pathBudget, type PathBudget } from '../materialize/rank/path-budget.ts';
import { Ranker } from '../materialize/rank/ranker.ts';
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

export async function runEvaluation(config: Config, o: EvaluationOptions): Promise<EvaluationReport> {
  const { nodeIds, split, describe } = await splitOf(o);
  const { train, hidden } = split;
  const relevant = sampleUsers(hidden, o.maxUsers);
  const hiddenEdges = [...hidden.values()].reduce((n, s) => n + s.size, 0);
  o.say(`${nodeIds.length} nodes, ${train.from.length + hiddenEdges} follows; ${hiddenEdges} hidden (${describe}); evaluating ${relevant.size} users`);

  const maxK = Math.max(...o.ks);
  if (maxK > config.REC_TOP_K) throw new Error(`--k ${maxK} is more than REC_TOP_K (${config.REC_TOP_K}) recommendations per profile`);
  const ours = recommenderLists(config, nodeIds.length, train, relevant.keys(), maxK, o.say);

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

/**
 * The production engine's lists on the training follows (pipeline/materialize: the same graph,
 * fit and ranker as a nightly run, with the run's settings), for the scored users. The training
 * follows' times, where the split gives them, are the follows' times: its fit holds out each
 * profile's newest follows and its new followers count, as in production.
 */
function recommenderLists(config: Config, nodes: number, train: HoldoutSplit['train'], users: Iterable<number>, k: number, say: (line: string) => void): Map<number, number[]> {
  const started = performance.now();
  const times = train.timeRank ? Uint32Array.from(train.timeRank) : undefined;
  const follows = FollowGraph.of(nodes, train.from, train.to, times);
  const world = { follows, signals: NO_SIGNALS(nodes), ...(times ? { moments: followMoments(follows) } : {}) };
  const settings = engineSettings(config);
  const budget = pathBudget(follows, settings.pathsPerRun, settings.pathsPerProfile);
  const rankSettings = rankSettingsOf(settings, budget);
  const fit = fitModel(world, rankSettings, settings.fitProfiles);
  say(fitLine(fit, budget));
  const ranker = new Ranker(world, rankSettings);
  const lists = new Map<number, number[]>();
  let rows = 0;
  for (const user of users) {
    const list = ranker.rank(user, fit.model);
    lists.set(user, Array.from(list.candidate.subarray(0, Math.min(k, list.length))));
    rows += list.length;
  }
  say(`ranked ${lists.size} users' lists in ${((performance.now() - started) / 1000).toFixed(1)} s: ${rows} recommendations`);
  return lists;
}

/** What the engine fitted to the training graph, as one line. */
function fitLine(fit: FitReport, budget: PathBudget): string {
  const weights = FEATURES.map((f, i) => `${f} ${fit.model.weights[i]!.toFixed(2)}`).join(', ');
  return (
    `fitted: ${fit.model.source} weights (${weights}); of ${fit.heldOut} held-out follows of ${fit.profiles} profiles, ${fit.candidates} among their candidates, ` +
    `${fit.foundByDefault} in the first 50 under the default weights, ${fit.foundByFitted} under the fitted ones; ` +
    (budget.every ? `every path of every profile (${budget.pathsInAll} in all)` : `at most ${budget.cap} paths per profile (of ${budget.pathsInAll} in all)`)
  );
}
