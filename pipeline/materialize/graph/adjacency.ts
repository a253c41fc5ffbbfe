/**
 * Compressed adjacency (CSR): the neighbours of node i are targets[offsets[i] .. offsets[i + 1]).
 * Plain typed arrays, optionally on SharedArrayBuffers, so that worker threads read one copy
 * of a graph without copying it (rank/rank-pool.ts).
 */

export interface Adjacency {
  offsets: Uint32Array;
  targets: Uint32Array;
}

/** A Uint32Array on shared memory when `shared`, else on ordinary memory. */
export function uint32Array(length: number, shared: boolean): Uint32Array {
  return shared ? new Uint32Array(new SharedArrayBuffer(Math.max(1, length) * 4), 0, length) : new Uint32Array(length);
}

export function float64Array(length: number, shared: boolean): Float64Array {
  return shared ? new Float64Array(new SharedArrayBuffer(Math.max(1, length) * 8), 0, length) : new Float64Array(length);
}

export function degreeOf(adj: Adjacency, node: number): number {
  return adj.offsets[node + 1]! - adj.offsets[node]!;
}

export function neighboursOf(adj: Adjacency, node: number): Uint32Array {
  return adj.targets.subarray(adj.offsets[node]!, adj.offsets[node + 1]!);
}

/** How many edges leave each node: the offsets of a CSR whose edges are counted by `from`. */
export function offsetsOf(nodes: number, from: Uint32Array, shared: boolean): Uint32Array {
  const offsets = uint32Array(nodes + 1, shared);
  for (let i = 0; i < from.length; i++) offsets[from[i]! + 1]!++;
  for (let i = 0; i < nodes; i++) offsets[i + 1]! += offsets[i]!;
  return offsets;
}

/**
 * The edges (from[e], to[e]) as a CSR by `from`, each node's list in the order `order` gives
 * the edges (a permutation of 0..m-1; identity when absent), and each edge's position in the
 * CSR (so that per-edge values can be laid out beside it).
 */
export function csrOf(nodes: number, from: Uint32Array, to: Uint32Array, shared: boolean, order?: Uint32Array): { adj: Adjacency; position: Uint32Array } {
  const offsets = offsetsOf(nodes, from, shared);
  const next = offsets.slice(0, nodes);
  const targets = uint32Array(from.length, shared);
  const position = new Uint32Array(from.length);
  for (let i = 0; i < from.length; i++) {
    const e = order ? order[i]! : i;
    const at = next[from[e]!]!++;
    targets[at] = to[e]!;
    position[e] = at;
  }
  return { adj: { offsets, targets }, position };
}

/**
 * A permutation of the edges that sorts them by `rank[to[e]]` (0 first), stable: a counting
 * sort, linear in edges and ranks, where a comparison sort of 50 M edges would take seconds.
 */
export function edgesByRank(to: Uint32Array, rank: Uint32Array): Uint32Array {
  const counts = new Uint32Array(rank.length + 1);
  for (let e = 0; e < to.length; e++) counts[rank[to[e]!]! + 1]!++;
  for (let r = 0; r < rank.length; r++) counts[r + 1]! += counts[r]!;
  const order = new Uint32Array(to.length);
  for (let e = 0; e < to.length; e++) order[counts[rank[to[e]!]!]!++] = e;
  return order;
}
