/** How far behind each node's replicas are, from what system.replicas says on every node (shared/clickhouse/replication-wait.ts). */
import { describe, expect, it } from 'vitest';
import { entriesBehind, type ReplicaState } from '../../shared/clickhouse/replication-wait.ts';

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
