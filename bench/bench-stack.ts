/**
 * What every benchmark starts with: a private ClickHouse + Redis in a throwaway folder, and
 * an ordered shutdown that also runs on Ctrl-C, so no server outlives the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../shared/config.ts';
import { ensureLocalStack, type LocalStack } from '../shared/local-stack/local-stack.ts';
import { Shutdown } from '../shared/shutdown.ts';

export interface BenchStack {
  work: string;
  stack: LocalStack;
  shutdown: Shutdown;
}

/** `settings`: raw settings the stack's servers are started with (e.g. INGEST_CPUS). */
export async function startBenchStack(name: string, settings: Record<string, string> = {}): Promise<BenchStack> {
  const work = await mkdtemp(path.join(os.tmpdir(), `soulgraph-${name}-`));
  const stack = await ensureLocalStack(parseConfig(settings), { dataDir: work, reuse: false, stateFile: false });
  const shutdown = new Shutdown((line) => console.error(line));
  shutdown.add('work folder', () => rm(work, { recursive: true, force: true }));
  shutdown.add('local stack', () => stack.stop());
  shutdown.exitOnSignals(130);
  return { work, stack, shutdown };
}
