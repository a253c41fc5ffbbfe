/**
 * Everything a run knows, in memory: the profiles with their dense ids, the follow graph, the
 * other signals, and what a newcomer's own transfers and holdings are checked against
 * (addresses, excluded addresses, collections). Loaded once per run (load/world-loader.ts),
 * ranked by the threads of every worker that holds it, and kept by the resident engine for
 * lists computed on demand.
 */
import type { HashIndex } from '../load/hash-index.ts';
import type { IdIndex } from '../load/id-index.ts';
import type { FollowGraph } from './follow-graph.ts';
import type { FollowMoments } from './follow-moments.ts';
import type { SignalGraphs } from './signal-graphs.ts';

export interface World {
  /** Profile ids, numbered 0..n-1 in profile_id order, and found by their cityHash64 too. */
  profiles: IdIndex;
  profileHashes: HashIndex;
  /** Every profile's social handle by its hash: whose it is. */
  handles: HashIndex;
  /** Every address of a profile by its hash: whose it is. */
  addresses: HashIndex;
  follows: FollowGraph;
  /** Follow times counted in follows, when follows have times that differ. */
  moments?: FollowMoments;
  signals: SignalGraphs;
  /** "<chain>:<contract>" -> collection number, for the eligible collections. */
  collectionIndex: ReadonlyMap<string, number>;
  /** Addresses (by hash) whose transfers count for nobody (hubs, labelled non-persons, the deny list). */
  excluded: HashIndex;
  /** The newest block time: what transfer ages are counted back from. */
  asOf: number;
}
