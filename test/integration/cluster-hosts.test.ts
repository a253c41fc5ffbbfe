/**
 * What asks every node of a cluster leaves out only a node it cannot reach
 * (shared/clickhouse/cluster-hosts.ts): measured on a real server, whose remote() to a
 * closed port fails as a dead node's does (Code 279, all connection tries failed).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { onFirstThatAnswers, unlessUnreachable } from '../../shared/clickhouse/cluster-hosts.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const one = z.object({ dummy: z.coerce.number() });

/** A statement a node refuses with `message` its first `refusals` times, then runs; and how often it was tried. */
function refusingFirst(refusals: number, message: string) {
  let tries = 0;
  const ask = async (node: typeof env.ch) => {
    if (++tries <= refusals) throw new Error(message);
    await node.query(sql`SELECT dummy FROM system.one`, one);
  };
  return { ask, tries: () => tries };
}

describe('asking a node of the cluster', () => {
  it('leaves out a node that cannot be reached', async () => {
    const asked = env.ch.query(sql`SELECT dummy FROM remote('127.0.0.1:1', system, one)`, one);
    expect(await unlessUnreachable<unknown>(asked, 'left out')).toBe('left out');
  });

  it('fails loudly when a node answers with an error, rather than taking it for a dead one', async () => {
    const asked = env.ch.query(sql`SELECT dummy FROM system.no_such_table`, one);
    await expect(unlessUnreachable<unknown>(asked, 'left out')).rejects.toThrow(/no_such_table/);
  });

  it('answers what a reachable node answers', async () => {
    expect(await unlessUnreachable(env.ch.query(sql`SELECT dummy FROM system.one`, one), [])).toEqual([{ dummy: 0 }]);
  });

  it("says, when no node of a shard can run a statement, what each met: a node that is up but cannot reach the one it needs is named with that", async () => {
    const needsADeadNode = (node: typeof env.ch) => node.query(sql`SELECT dummy FROM remote('127.0.0.1:1', system, one)`, one).then(() => {});
    const failure = await onFirstThatAnswers([env.ch, env.ch], needsADeadNode).then(() => 'ran', (error: Error) => error.message);
    expect(failure).toMatch(/^no node of a shard could run it \(/);
    expect(failure.split('; ')).toHaveLength(2);
    expect(failure).toContain(`${env.ch.address}: `);
    expect(failure).toMatch(/Code: 279|127\.0\.0\.1:1/);
  });

  it('runs a statement on the first node that can', async () => {
    const ran: string[] = [];
    await onFirstThatAnswers([env.ch, env.ch], async (node) => void ran.push(node.address));
    expect(ran).toEqual([env.ch.address]);
  });

  it('tries again, within its time, a statement a node refused because the replication leader changed under it', async () => {
    // What 18.16 answers a partition drop sent while ZooKeeper hands leadership to another replica.
    const leaderChanged = 'Code: 292, e.displayText() = DB::Exception: Leader was suddenly changed or logical error., e.what() = DB::Exception';
    const changingLeader = refusingFirst(2, leaderChanged);
    await onFirstThatAnswers([env.ch], changingLeader.ask, 10_000);
    expect(changingLeader.tries()).toBe(3);
    await expect(onFirstThatAnswers([env.ch], refusingFirst(Infinity, leaderChanged).ask)).rejects.toThrow(/^no node of a shard could run it \(.*Code: 292/);
  });

  it("tries again a statement a node refused because the dead leader's election node went away as it looked", async () => {
    // What 18.16 answered once in the local cluster's failover test (local-cluster.test.ts).
    const electing = refusingFirst(
      1,
      "Code: 999, e.displayText() = Coordination::Exception: Can't get data for node /clickhouse/tables/2/soulgraph/recommendations_local/leader_election/leader_election-0000000001: node doesn't exist (No node), e.what() = Coordination::Exception",
    );
    await onFirstThatAnswers([env.ch], electing.ask, 10_000);
    expect(electing.tries()).toBe(2);
  });

  it('fails loudly on any other ZooKeeper error, rather than waiting it out', async () => {
    const failing = refusingFirst(Infinity, "Code: 999, e.displayText() = Coordination::Exception: Can't get data for node /clickhouse/tables/2/soulgraph/recommendations_local/log: node doesn't exist (No node)");
    await expect(onFirstThatAnswers([env.ch], failing.ask, 10_000)).rejects.toThrow(/\/log: node doesn't exist/);
    expect(failing.tries()).toBe(1);
  });

  it('fails loudly when a node refuses a statement, rather than trying the next', async () => {
    const refused = (node: typeof env.ch) => node.query(sql`SELECT dummy FROM system.no_such_table`, one).then(() => {});
    await expect(onFirstThatAnswers([env.ch, env.ch], refused)).rejects.toThrow(/no_such_table/);
  });
});
