import { describe, expect, it } from 'vitest';
import { runInDependencyOrder } from '../../pipeline/materialize/dependency-order.ts';
import { scoringParams } from '../../pipeline/materialize/scoring.ts';
import { WORKING_SET_READS, WORKING_TABLES, workingSetStatements } from '../../pipeline/materialize/working-set.ts';
import { parseConfig } from '../../shared/config.ts';

/** A step that records when it starts and ends, finishing when `release(step)` is called. */
function controlledSteps() {
  const events: string[] = [];
  const releases = new Map<string, () => void>();
  const failures = new Map<string, (error: Error) => void>();
  const run = (step: string) =>
    new Promise<void>((resolve, reject) => {
      events.push(`start ${step}`);
      releases.set(step, () => {
        events.push(`end ${step}`);
        resolve();
      });
      failures.set(step, reject);
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { events, run, settle, release: (s: string) => releases.get(s)!(), fail: (s: string, e: Error) => failures.get(s)!(e) };
}

describe('runInDependencyOrder', () => {
  it('starts a step only after every step it reads has finished', async () => {
    const c = controlledSteps();
    const done = runInDependencyOrder({ a: [], b: ['a'], c: ['a', 'b'] }, 4, c.run);
    await c.settle();
    expect(c.events).toEqual(['start a']);
    c.release('a');
    await c.settle();
    expect(c.events).toEqual(['start a', 'end a', 'start b']);
    c.release('b');
    await c.settle();
    c.release('c');
    await done;
    expect(c.events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs independent steps side by side, never more than the concurrency at once', async () => {
    const c = controlledSteps();
    const done = runInDependencyOrder({ a: [], b: [], c: [], d: ['a'] }, 2, c.run);
    await c.settle();
    expect(c.events).toEqual(['start a', 'start b']);
    c.release('a');
    await c.settle();
    // c was declared before d, so it takes the free slot first.
    expect(c.events).toEqual(['start a', 'start b', 'end a', 'start c']);
    c.release('b');
    await c.settle();
    expect(c.events.at(-1)).toBe('start d');
    c.release('c');
    c.release('d');
    await done;
  });

  it('starts nothing more after a failure, waits for the steps running, then throws it', async () => {
    const c = controlledSteps();
    const done = runInDependencyOrder({ a: [], b: [], c: ['a'] }, 2, c.run);
    const outcome = done.then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    await c.settle();
    c.fail('a', new Error('a broke'));
    await c.settle();
    expect(c.events).toEqual(['start a', 'start b']);
    let settled = false;
    void outcome.then(() => (settled = true));
    await c.settle();
    expect(settled).toBe(false);
    c.release('b');
    expect(await outcome).toBe('a broke');
    expect(c.events).not.toContain('start c');
  });

  it('refuses steps that read a step that does not exist, or wait on each other in a cycle', async () => {
    await expect(runInDependencyOrder({ a: ['z' as 'a'] }, 1, async () => {})).rejects.toThrow('reads z, which is not a step');
    await expect(runInDependencyOrder({ a: ['b'], b: ['a'] }, 1, async () => {})).rejects.toThrow('cycle: a, b');
  });
});

describe('the working set', () => {
  const statements = workingSetStatements(7, scoringParams(parseConfig({})), 1_700_000_000);

  it.each(WORKING_TABLES)('declares every working-set table that the statement writing %s reads', (table) => {
    const mentioned = new Set(statements[table].text.match(/\bmat_[a-z_]+/g) ?? []);
    mentioned.delete(table);
    const others = [...mentioned].filter((t) => (WORKING_TABLES as string[]).includes(t));
    expect(others.sort()).toEqual([...WORKING_SET_READS[table]].sort());
  });
});
