/**
 * Where the hidden follows lie in the training graph, and what each method's first k find of
 * each kind: how much of a graph's recall any ranking of friends of friends can reach, and
 * where a method's recall comes from. A hidden follow u → c is
 * - a return: c follows u in training (following back finds it);
 * - two hops: otherwise, c and u have a neighbour in common, follows either way (what
 *   friend-of-friend, Adamic-Adar and every other two-hop ranking can reach);
 * - farther: neither (only a fallback such as popularity, or longer walks, can list it).
 *
 * Shares are means over the scored users, as recall is: the three shares of the hidden
 * follows sum to 1, and a method's three found shares sum to its recall@k.
 */
import type { TrainingGraph } from './link-prediction-baselines.ts';

export const REACH = ['returns', 'two hops', 'farther'] as const;
export type Reach = (typeof REACH)[number];
export type ReachShares = Record<Reach, number>;

export interface HiddenFollowReach {
  k: number;
  /** Mean over the scored users of the share of their hidden follows of each kind. */
  hidden: ReachShares;
  /** Per method, mean over the scored users of the share of their hidden follows of each kind that its first k list. */
  found: Map<string, ReachShares>;
}

export function hiddenFollowReach(
  training: TrainingGraph,
  relevant: ReadonlyMap<number, ReadonlySet<number>>,
  lists: ReadonlyMap<string, ReadonlyMap<number, readonly number[]>>,
  k: number,
): HiddenFollowReach {
  const users = Math.max(1, relevant.size);
  const hidden = noShares();
  const found = new Map([...lists.keys()].map((method) => [method, noShares()]));
  for (const [user, wanted] of relevant) {
    // Each user weighs the same, whatever the number of its hidden follows, as in recall.
    const share = 1 / wanted.size / users;
    const reach = new Map([...wanted].map((c) => [c, reachOf(training, user, c)]));
    for (const kind of reach.values()) hidden[kind] += share;
    for (const [method, byUser] of lists) {
      for (const c of (byUser.get(user) ?? []).slice(0, k)) {
        const kind = reach.get(c);
        if (kind) found.get(method)![kind] += share;
      }
    }
  }
  return { k, hidden, found };
}

function reachOf(training: TrainingGraph, user: number, candidate: number): Reach {
  if (training.follows(candidate, user)) return 'returns';
  return training.shareNeighbour(user, candidate) ? 'two hops' : 'farther';
}

function noShares(): ReachShares {
  return { returns: 0, 'two hops': 0, farther: 0 };
}

/** One line: the hidden follows' shares. */
export function reachLine(r: HiddenFollowReach): string {
  const percent = (v: number) => `${(100 * v).toFixed(1)} %`;
  return `where the hidden follows lie (mean share per user): ${REACH.map((kind) => `${kind} ${percent(r.hidden[kind])}`).join(', ')}`;
}

/** The shares, and what each method's first k find of each kind (in all: its recall@k), as Markdown. */
export function reachTableMarkdown(r: HiddenFollowReach): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const row = (name: string, shares: ReachShares) => line([name, ...REACH.map((kind) => shares[kind].toFixed(4)), REACH.reduce((sum, kind) => sum + shares[kind], 0).toFixed(4)]);
  return [
    line(['', ...REACH, 'in all']),
    line(['---', ...REACH.map(() => '---:'), '---:']),
    row('hidden follows', r.hidden),
    ...[...r.found].map(([method, shares]) => row(method, shares)),
  ].join('\n');
}
