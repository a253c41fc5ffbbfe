/**
 * Everything a run knows, in memory: the profiles with their dense ids, the follow graph, the
 * other signals, and what a newcomer's own transfers and holdings are checked against
 * (addresses, excluded addresses, collections). Loaded once per run (load/world-loader.ts),
 * ranked by the threads of every worker that holds it, and kept by the resident engine for
 * lists computed on demand.
 */
import type { IdIndex } from '../load/id-index.ts';
import type { FollowGraph } from './follow-graph.ts';
import type { FollowMoments } from './follow-moments.ts';
import type { SignalGraphs } from './signal-graphs.ts';

export interface World {
  /** Profile ids, numbered 0..n-1 in profile_id order. */
  profiles: IdIndex;
  /** Every profile's social handle, and whose it is (handleOwner[handle number]). */
  handles: IdIndex;
  handleOwner: Uint32Array;
  /** Every address of a profile, and whose it is (addressOwner[address number]). */
  addresses: IdIndex;
  addressOwner: Uint32Array;
  follows: FollowGraph;
  /** Follow times counted in follows, when follows have times that differ. */
  moments?: FollowMoments;
  signals: SignalGraphs;
  /** "<chain>:<contract>" -> collection number, for the eligible collections. */
  collectionIndex: ReadonlyMap<string, number>;
  /** Addresses whose transfers count for nobody (hubs, labelled non-persons, the deny list). */
  excluded: ReadonlySet<string>;
  /** The newest block time: what transfer ages are counted back from. */
  asOf: number;
}
