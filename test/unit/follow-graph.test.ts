import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EdgeListReader, oneWayFollows, readFollowGraph } from '../../pipeline/evaluate/follow-graph.ts';

async function file(text: string): Promise<string> {
  const name = path.join(await mkdtemp(path.join(os.tmpdir(), 'edges-')), 'edges.txt');
  await writeFile(name, text);
  return name;
}

describe('reading an edge list', () => {
  it('reads SNAP\'s signed trust ratings: positive ratings as follows, with their times', async () => {
    const graph = await readFollowGraph(await file('7188,1,10,1407470400\n430,1,-1,1376539200\n3134,1,10,1369713600\n'));
    expect(graph.nodeIds).toEqual(['7188', '1', '3134']);
    expect([...graph.from]).toEqual([0, 2]);
    expect([...graph.to]).toEqual([1, 1]);
    expect([...graph.time!]).toEqual([1407470400, 1369713600]);
  });

  it('has times only when every line gives one', async () => {
    expect((await readFollowGraph(await file('1 2 100\n2 3 200\n'))).time).toEqual(Float64Array.from([100, 200]));
    expect((await readFollowGraph(await file('1 2 100\n2 3\n'))).time).toBeUndefined();
  });

  it('keeps one of a repeated edge and drops self-follows; undirected, a pair either way is one pair', async () => {
    const directed = await readFollowGraph(await file('1\t2\n2\t1\n1\t2\n3\t3\n'));
    expect(directed.from.length).toBe(2);
    const undirected = await readFollowGraph(await file('1 2\n2 1\n0x0a 1\n'), true);
    expect(undirected.from.length).toBe(2);
    expect(undirected.undirected).toBe(true);
  });

  it('reduces each pair that follows both ways to its first-seen direction, times kept, when asked for one way', async () => {
    const graph = oneWayFollows(await readFollowGraph(await file('1 2 10\n2 3 20\n2 1 30\n3 2 40\n3 1 50\n')));
    expect([...graph.from].map((i) => graph.nodeIds[i])).toEqual(['1', '2', '3']);
    expect([...graph.to].map((i) => graph.nodeIds[i])).toEqual(['2', '3', '1']);
    expect([...graph.time!]).toEqual([10, 20, 50]);
  });

  it('skips comments, SNAP\'s (#) and KONECT\'s (%), wherever they are', async () => {
    const graph = await readFollowGraph(await file('% asym unweighted\n% 3 3 3\n# Nodes: 3\n1 2\n  % a note\n2 3\n'));
    expect(graph.nodeIds).toEqual(['1', '2', '3']);
    expect(graph.from.length).toBe(2);
  });

  it('skips the first line when told it is a header, and only that line', async () => {
    const graph = await new EdgeListReader(false, true).read(await file('# comment\nsource,target,weight,timestamp\n1,2,3,4\n'));
    expect(graph.nodeIds).toEqual(['1', '2']);
    await expect(new EdgeListReader(false, true).read(await file('a b\nc d\n'))).rejects.toThrow(/:2: node ids are whole numbers/);
  });

  it('numbers the nodes of several files as one graph', async () => {
    const reader = new EdgeListReader(false);
    await reader.read(await file('5 6\n'));
    const second = await reader.read(await file('6 7\n'));
    expect(reader.nodeIds).toEqual(['5', '6', '7']);
    expect([...second.from, ...second.to]).toEqual([1, 2]);
  });

  it('refuses a line it cannot read, with its line number', async () => {
    const name = await file('# comment\n1 2\n1 2 3 4 5\n');
    await expect(readFollowGraph(name)).rejects.toThrow(`${name}:3: expected "<from><TAB><to>"`);
    await expect(readFollowGraph(await file('1 2 soon\n'))).rejects.toThrow(/:1: expected numbers after the ids \(from to time\)/);
    await expect(readFollowGraph(await file('# only a comment\n'))).rejects.toThrow(/no edges/);
  });
});
