/**
 * The three signals beside the app's follows, between the run's profiles (dense ids):
 * social follows, on-chain counterparties and NFT collections held in common. Loaded from
 * ClickHouse already cleaned (load/inputs-sql.ts: hygiene rules, eligible collections).
 */
import { csrOf, float64Array, uint32Array, type Adjacency } from './adjacency.ts';

export interface SignalGraphs {
  /** p -> c: p's handle follows c's handle on the social network. */
  social: Adjacency;
  /** p -> c for every pair whose addresses transferred, both directions listed. */
  counterparties: Adjacency;
  /** Beside counterparties.targets: Σ over their transfers of 2^(-age / half-life). */
  counterpartyWeight: Float64Array;
  /** Beside counterparties.targets: the chain with the most weight, how many transfers in all, and when the newest was. */
  counterpartyChain: Uint32Array;
  counterpartyTransfers: Uint32Array;
  counterpartyLast: Uint32Array;
  /** p -> collection index: collections p holds a token of (eligible ones only). */
  holdings: Adjacency;
  /** collection -> p: its holders, most followed first. */
  holders: Adjacency;
  collections: Collections;
}

export interface Collections {
  chainId: Uint32Array;
  contract: string[];
  name: string[];
  /** 1 / ln(1 + holders): a rare collection says more. */
  weight: Float64Array;
}

export interface CounterpartyPairs {
  from: Uint32Array;
  to: Uint32Array;
  chainId: Uint32Array;
  transfers: Uint32Array;
  last: Uint32Array;
  weight: Float64Array;
}

export const NO_SIGNALS = (nodes: number): SignalGraphs => {
  const empty: Adjacency = { offsets: new Uint32Array(nodes + 1), targets: new Uint32Array(0) };
  return {
    social: empty,
    counterparties: empty,
    counterpartyWeight: new Float64Array(0),
    counterpartyChain: new Uint32Array(0),
    counterpartyTransfers: new Uint32Array(0),
    counterpartyLast: new Uint32Array(0),
    holdings: empty,
    holders: { offsets: new Uint32Array(1), targets: new Uint32Array(0) },
    collections: { chainId: new Uint32Array(0), contract: [], name: [], weight: new Float64Array(0) },
  };
};

/**
 * The signal graphs of `nodes` profiles: social follows (from[i] follows to[i]), counterparty
 * pairs (one row per pair and chain, either direction; rows of one pair are combined), and
 * holdings (holder[i] holds collection[i]), with `popularRank` ordering each collection's holders.
 */
export function signalGraphs(
  nodes: number,
  social: { from: Uint32Array; to: Uint32Array },
  pairs: CounterpartyPairs,
  holdings: { holder: Uint32Array; collection: Uint32Array },
  collections: Collections,
  popularRank: Uint32Array,
  shared = false,
): SignalGraphs {
  const combined = combinedPairs(pairs);
  const both = {
    from: concat(combined.from, combined.to),
    to: concat(combined.to, combined.from),
  };
  const cp = csrOf(nodes, both.from, both.to, shared);
  const place = <T extends Uint32Array | Float64Array>(values: T, out: T) => {
    for (let e = 0; e < both.from.length; e++) out[cp.position[e]!] = values[e % values.length]!;
    return out;
  };
  const edges = both.from.length;
  const byRank = new Uint32Array(holdings.holder.length);
  byRank.set(Array.from(holdings.holder.keys()).sort((a, b) => popularRank[holdings.holder[a]!]! - popularRank[holdings.holder[b]!]! || a - b));
  return {
    social: csrOf(nodes, social.from, social.to, shared).adj,
    counterparties: cp.adj,
    counterpartyWeight: place(combined.weight, float64Array(edges, shared)),
    counterpartyChain: place(combined.chainId, uint32Array(edges, shared)),
    counterpartyTransfers: place(combined.transfers, uint32Array(edges, shared)),
    counterpartyLast: place(combined.last, uint32Array(edges, shared)),
    holdings: csrOf(nodes, holdings.holder, holdings.collection, shared).adj,
    holders: csrOf(collections.chainId.length, holdings.collection, holdings.holder, shared, byRank).adj,
    collections,
  };
}

/** One row per pair (from < to after ordering): weights summed, transfers counted, the newest time, and the chain with most weight. */
export function combinedPairs(pairs: CounterpartyPairs): CounterpartyPairs {
  const byPair = new Map<number, number>();
  const from: number[] = [];
  const to: number[] = [];
  const chainId: number[] = [];
  const chainWeight: number[] = [];
  const transfers: number[] = [];
  const last: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < pairs.from.length; i++) {
    const [a, b] = pairs.from[i]! < pairs.to[i]! ? [pairs.from[i]!, pairs.to[i]!] : [pairs.to[i]!, pairs.from[i]!];
    if (a === b) continue;
    const key = a * 4_294_967_296 + b;
    let at = byPair.get(key);
    if (at === undefined) {
      at = from.length;
      byPair.set(key, at);
      from.push(a);
      to.push(b);
      chainId.push(pairs.chainId[i]!);
      chainWeight.push(0);
      transfers.push(0);
      last.push(0);
      weight.push(0);
    }
    const w = pairs.weight[i]!;
    weight[at]! += w;
    transfers[at]! += pairs.transfers[i]!;
    last[at] = Math.max(last[at]!, pairs.last[i]!);
    // The chain with the most weight names the pair; equal weights go to the lower chain id.
    if (w > chainWeight[at]! || (w === chainWeight[at]! && pairs.chainId[i]! < chainId[at]!)) {
      chainWeight[at] = w;
      chainId[at] = pairs.chainId[i]!;
    }
  }
  return {
    from: Uint32Array.from(from),
    to: Uint32Array.from(to),
    chainId: Uint32Array.from(chainId),
    transfers: Uint32Array.from(transfers),
    last: Uint32Array.from(last),
    weight: Float64Array.from(weight),
  };
}

function concat(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
