/**
 * Runs steps that read each other's output: each starts once every step it reads has
 * finished, at most `concurrency` at a time, in declaration order among those ready. The
 * working set has two independent chains (the follow graph's lists, the chain and NFT
 * inputs) that need not wait for each other.
 *
 * The first failure stops new steps from starting; the steps already running are awaited
 * (their statements cannot be cancelled halfway anyway) and then the failure is thrown.
 */
export async function runInDependencyOrder<Step extends string>(
  reads: Readonly<Record<Step, readonly NoInfer<Step>[]>>,
  concurrency: number,
  run: (step: Step) => Promise<void>,
): Promise<void> {
  const steps = Object.keys(reads) as Step[];
  for (const step of steps) {
    for (const read of reads[step]) {
      if (!(read in reads)) throw new Error(`step ${step} reads ${read}, which is not a step`);
    }
  }
  const done = new Set<Step>();
  const started = new Set<Step>();
  const running = new Map<Step, Promise<Step>>();

  const ready = () => steps.filter((s) => !started.has(s) && reads[s].every((r) => done.has(r)));
  while (done.size < steps.length) {
    for (const step of ready().slice(0, concurrency - running.size)) {
      started.add(step);
      running.set(step, run(step).then(() => step));
    }
    if (running.size === 0) {
      throw new Error(`steps wait on each other in a cycle: ${steps.filter((s) => !done.has(s)).join(', ')}`);
    }
    try {
      const finished = await Promise.race(running.values());
      running.delete(finished);
      done.add(finished);
    } catch (error) {
      // race() does not say which one failed: let the others finish, then stop.
      await Promise.allSettled(running.values());
      throw error;
    }
  }
}
