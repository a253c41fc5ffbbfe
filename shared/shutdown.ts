/**
 * Ordered, graceful shutdown for every process. Steps run in reverse order of
 * registration (stop taking work, then finish it, then close connections, then stop
 * the local servers), each bounded by a timeout. A second signal exits at once.
 */
export type ShutdownStep = { name: string; run: () => Promise<void> | void };

export class Shutdown {
  private readonly steps: ShutdownStep[] = [];
  private running: Promise<void> | undefined;
  /** Set before the first step runs (runSteps calls it before `running` is assigned). */
  private begun = false;

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** Registers a step; later registrations run first. */
  add(name: string, run: ShutdownStep['run']): void {
    this.steps.push({ name, run });
  }

  /**
   * Runs every step once, newest first; failures are reported and the rest still run.
   * A `reason` (a signal, a crash) is announced; a normal end (no reason) is quiet.
   */
  run(reason?: string, stepTimeoutMs = 30_000): Promise<void> {
    this.begun = true;
    this.running ??= this.runSteps(reason, stepTimeoutMs);
    return this.running;
  }

  /** Whether the steps have begun: what exits from then on is expected. */
  get started(): boolean {
    return this.begun;
  }

  /** SIGINT/SIGTERM run the steps then exit; a second signal exits immediately. */
  exitOnSignals(exitCode = 0): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        this.log(`${signal} again: exiting now`);
        process.exit(130);
      }
      signalled = true;
      void this.run(signal).then(() => process.exit(exitCode));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  private async runSteps(reason: string | undefined, stepTimeoutMs: number): Promise<void> {
    if (reason) this.log(`shutting down (${reason})`);
    for (const step of [...this.steps].reverse()) {
      try {
        await withTimeout(Promise.resolve(step.run()), stepTimeoutMs, step.name);
      } catch (error) {
        this.log(`shutdown step "${step.name}" failed: ${(error as Error).message}`);
      }
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
