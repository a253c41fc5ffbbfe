/**
 * How many paths each profile of a run gets (path-sources.ts): a run's cost grows with its
 * paths in all, so the run has a budget (REC_FOF_PATHS_PER_RUN) shared by water-filling: the
 * cap is the largest number such that every profile's paths, each cut at it, fit the budget,
 * and never less than REC_FOF_PATHS. Most profiles have fewer paths than an equal share and
 * leave the rest to those near hubs; a world whose paths in all fit the budget gets every path.
 */
import type { FollowGraph } from '../graph/follow-graph.ts';
import { pathsOf } from './path-sources.ts';

export interface PathBudget {
  /** Paths a profile gets at most. */
  cap: number;
  /** Whether every profile gets every path (the run's paths in all fit its budget). */
  every: boolean;
  /** Paths of every profile, unbounded, and those the cap leaves. */
  pathsInAll: number;
  pathsKept: number;
}

export function pathBudget(g: FollowGraph, perRun: number, atLeast: number): PathBudget {
  const paths = new Float64Array(g.nodes);
  let pathsInAll = 0;
  let most = 0;
  for (let p = 0; p < g.nodes; p++) {
    paths[p] = pathsOf(g, p);
    pathsInAll += paths[p]!;
    most = Math.max(most, paths[p]!);
  }
  const kept = (cap: number) => {
    let total = 0;
    for (let p = 0; p < paths.length; p++) total += Math.min(paths[p]!, cap);
    return total;
  };
  let cap: number;
  if (pathsInAll <= perRun) cap = Math.max(most, atLeast);
  else {
    let low = 0;
    let high = most;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (kept(mid) <= perRun) low = mid;
      else high = mid - 1;
    }
    cap = Math.max(low, atLeast);
  }
  return { cap, every: pathsInAll <= perRun || cap >= most, pathsInAll, pathsKept: kept(cap) };
}
