/**
 * A follow graph read from edge lists: one edge a line, `from to` (SNAP's format, tab or
 * spaces), `from to time`, or `from,to,rating,time` (SNAP's signed trust networks: a
 * positive rating is read as a follow, the others are left out); `#` (SNAP) or `%` (KONECT)
 * starts a comment.
 * Node ids are whole numbers or 0x-hex; anything else (a header line such as `id_1 id_2`)
 * is refused with its line number, unless the reader is told the first line is a header. An undirected graph's lines are pairs, each listed once.
 * Node ids are renumbered densely (0..n-1) in order of first appearance, across every file
 * read with the same reader.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface FollowGraph {
  /** Original node id per dense index. */
  nodeIds: string[];
  /** One entry per edge (per pair in an undirected graph), first seen first. */
  from: Uint32Array;
  to: Uint32Array;
  /** Each edge's time, when every line of the file gave one. */
  time: Float64Array | undefined;
  undirected: boolean;
}

export class EdgeListError extends Error {
  override name = 'EdgeListError';
}

const NODE_ID = /^(\d{1,20}|0x[0-9a-fA-F]{1,64})$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** Reads edge lists into one node numbering (a given split's train and test files share it). */
export class EdgeListReader {
  readonly nodeIds: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    readonly undirected: boolean,
    /** The first line that is not a comment names the columns: skip it. */
    private readonly header = false,
  ) {}

  async read(file: string): Promise<FollowGraph> {
    const from: number[] = [];
    const to: number[] = [];
    const times: number[] = [];
    let timed = true;
    const seen = new Set<string>();
    let lineNumber = 0;
    let headerLeft = this.header;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      lineNumber++;
      const text = line.trim();
      if (text === '' || text.startsWith('#') || text.startsWith('%')) continue;
      if (headerLeft) {
        headerLeft = false;
        continue;
      }
      const edge = parseLine(text, `${file}:${lineNumber}`);
      if (edge === undefined) continue;
      const [a, b] = this.undirected && edge.from > edge.to ? [edge.to, edge.from] : [edge.from, edge.to];
      // A self-follow or a repeated edge says nothing a follow graph can use.
      if (a === b || seen.has(`${a}\t${b}`)) continue;
      seen.add(`${a}\t${b}`);
      from.push(this.dense(a));
      to.push(this.dense(b));
      if (edge.time === undefined) timed = false;
      else times.push(edge.time);
    }
    if (from.length === 0) throw new EdgeListError(`${file}: no edges`);
    return {
      nodeIds: this.nodeIds,
      from: Uint32Array.from(from),
      to: Uint32Array.from(to),
      time: timed ? Float64Array.from(times) : undefined,
      undirected: this.undirected,
    };
  }

  private dense(id: string): number {
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.nodeIds.length;
      this.index.set(id, i);
      this.nodeIds.push(id);
    }
    return i;
  }
}

/**
 * The graph with each pair followed both ways reduced to its first-seen direction: what is
 * left cannot be found by following back, so a method's score there does not come from
 * reciprocity alone.
 */
export function oneWayFollows(graph: FollowGraph): FollowGraph {
  const seen = new Set<number>();
  const keep: number[] = [];
  const key = (a: number, b: number) => a * 4_294_967_296 + b;
  for (let i = 0; i < graph.from.length; i++) {
    const a = graph.from[i]!;
    const b = graph.to[i]!;
    if (seen.has(key(b, a))) continue;
    seen.add(key(a, b));
    keep.push(i);
  }
  return {
    ...graph,
    from: Uint32Array.from(keep, (i) => graph.from[i]!),
    to: Uint32Array.from(keep, (i) => graph.to[i]!),
    time: graph.time && Float64Array.from(keep, (i) => graph.time![i]!),
  };
}

export async function readFollowGraph(file: string, undirected = false): Promise<FollowGraph> {
  return new EdgeListReader(undirected).read(file);
}

/** One line's edge; undefined for a signed edge that is not a follow (rating not above 0). */
function parseLine(text: string, where: string): { from: string; to: string; time?: number } | undefined {
  const parts = text.includes(',') ? text.split(',').map((p) => p.trim()) : text.split(/\s+/);
  const shape = parts.length === 4 ? 'from,to,rating,time' : parts.length === 3 ? 'from to time' : 'from to';
  if (parts.length < 2 || parts.length > 4) {
    throw new EdgeListError(`${where}: expected "<from><TAB><to>" (or "<from> <to> <time>", "<from>,<to>,<rating>,<time>"), got ${JSON.stringify(text.slice(0, 80))}`);
  }
  const [from, to] = parts as [string, string];
  if (!NODE_ID.test(from) || !NODE_ID.test(to)) {
    throw new EdgeListError(
      `${where}: node ids are whole numbers or 0x-hex, got ${JSON.stringify(text.slice(0, 80))} (a header line? pass --header, or start it with # or %)`,
    );
  }
  const numbers = parts.slice(2);
  if (!numbers.every((n) => NUMBER.test(n))) throw new EdgeListError(`${where}: expected numbers after the ids (${shape}), got ${JSON.stringify(text.slice(0, 80))}`);
  if (parts.length === 4 && Number(parts[2]) <= 0) return undefined;
  return parts.length === 2 ? { from, to } : { from, to, time: Number(parts.at(-1)) };
}
