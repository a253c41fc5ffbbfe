/** How far behind each node's replicas are, from what system.replicas says on every node (shared/clickhouse/replication-wait.ts). */
import { describe, expect, it } from 'vitest';
import { entriesBehind, settled, type ReplicaState } from '../../shared/clickhouse/replication-wait.ts';

const replica = (path: string, log_max_index: number, log_pointer: number, inserts_in_queue = 0): ReplicaState => ({ path, log_max_index, log_pointer, inserts_in_queue });

describe('replication lag', () => {
  it('is none for a table whose log is empty on every replica', () => {
    expect(entriesBehind([[replica('/t/1', 0, 0)], [replica('/t/1', 0, 0)]])).toEqual([0, 0]);
  });

  it('counts the first entry against a replica that has not copied it while a peer has', () => {
    expect(entriesBehind([[replica('/t/1', 0, 1)], [replica('/t/1', 0, 0)]])).toEqual([0, 1]);
    expect(entriesBehind([[replica('/t/1', 0, 0)], [replica('/t/1', 0, 1)]])).toEqual([1, 0]);
  });

  it('adds the entries not copied to the fetches queued, log by log, node by node', () => {
    const nodes = [
      [replica('/t/1', 4, 5), replica('/u/all', 9, 10)],
      [replica('/t/1', 4, 3, 1), replica('/u/all', 9, 7)],
      [replica('/t/2', 2, 3, 2), replica('/u/all', 9, 10)],
    ];
    expect(entriesBehind(nodes)).toEqual([0, 1 + 2 + 3, 2]);
  });

  it('leaves a node that did not answer unknown', () => {
    expect(entriesBehind([[replica('/t/1', 0, 1)], undefined])).toEqual([0, undefined]);
  });
});

describe('a replication wait', () => {
  const caughtUp = [[replica('/t/1', 4, 5)], [replica('/t/1', 4, 5)]];

  it('is not over on its first poll, however caught up that poll looks', () => {
    expect(settled(undefined, caughtUp)).toBe(false);
  });

  it('is over when two polls in a row find every replica caught up at the same log positions', () => {
    expect(settled(caughtUp, [[replica('/t/1', 4, 5)], [replica('/t/1', 4, 5)]])).toBe(true);
  });

  it('goes on when a replica moved its log pointer between the polls, though it shows nothing queued', () => {
    // The second node pulled entry 5 after the first poll: its pointer is past it, its fetch not queued yet.
    expect(settled(caughtUp, [[replica('/t/1', 5, 6)], [replica('/t/1', 5, 6)]])).toBe(false);
  });

  it('goes on while either poll finds a replica behind', () => {
    const behind = [[replica('/t/1', 4, 5)], [replica('/t/1', 4, 5, 1)]];
    expect(settled(behind, caughtUp)).toBe(false);
    expect(settled(caughtUp, behind)).toBe(false);
  });

  it('leaves out a node that did not answer, as long as it does not answer either time', () => {
    const oneDown = [[replica('/t/1', 4, 5)], undefined];
    expect(settled(oneDown, oneDown)).toBe(true);
    expect(settled(oneDown, caughtUp)).toBe(false);
  });
});
