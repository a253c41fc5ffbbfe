/**
 * A directed follow graph read from an edge list (`from<TAB>to` lines, `#` comments, the
 * SNAP format), split into the edges the recommender may see and the hidden ones it should
 * find. Node ids are renumbered densely (0..n-1) in order of first appearance.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { hashFloat, seedOf, streamKey } from '../generate/random.ts';

export interface FollowGraph {
  /** Original node id per dense index. */
  nodeIds: string[];
  from: Uint32Array;
  to: Uint32Array;
}

export class EdgeListError extends Error {
  override name = 'EdgeListError';
}

export async function readFollowGraph(file: string): Promise<FollowGraph> {
  const index = new Map<string, number>();
  const nodeIds: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const seen = new Set<string>();
  const dense = (id: string) => {
    let i = index.get(id);
    if (i === undefined) {
      i = nodeIds.length;
      index.set(id, i);
      nodeIds.push(id);
    }
    return i;
  };
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNumber++;
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    const parts = text.split(/\s+/);
    if (parts.length !== 2 || !parts.every((p) => /^[A-Za-z0-9_.:-]{1,64}$/.test(p))) {
      throw new EdgeListError(`${file}:${lineNumber}: expected "<from><TAB><to>", got ${JSON.stringify(text.slice(0, 80))}`);
    }
    const [a, b] = parts as [string, string];
    // A self-follow or a repeated edge says nothing a follow graph can use.
    if (a === b || seen.has(`${a}\t${b}`)) continue;
    seen.add(`${a}\t${b}`);
    from.push(dense(a));
    to.push(dense(b));
  }
  if (from.length === 0) throw new EdgeListError(`${file}: no edges`);
  return { nodeIds, from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

export interface HoldoutSplit {
  /** Indices of the edges the recommender sees. */
  train: Uint32Array;
  /** Hidden followees per follower (dense ids). */
  hidden: Map<number, Set<number>>;
}

/**
 * Hides each edge with probability `fraction`, decided by a hash of (seed, from, to): the
 * same seed hides the same edges whatever the order of the file.
 */
export function splitHoldout(graph: FollowGraph, fraction: number, seed: number): HoldoutSplit {
  const key = seedOf(seed);
  const stream = streamKey('holdout');
  const train: number[] = [];
  const hidden = new Map<number, Set<number>>();
  for (let i = 0; i < graph.from.length; i++) {
    const a = graph.from[i]!;
    const b = graph.to[i]!;
    if (hashFloat(key, stream, a, b) < fraction) {
      let set = hidden.get(a);
      if (!set) hidden.set(a, (set = new Set()));
      set.add(b);
    } else {
      train.push(i);
    }
  }
  return { train: Uint32Array.from(train), hidden };
}
