/**
 * The processes a fault is done to, started as an operator starts them: `soulgraph`
 * commands (ingest, workers, retry) and the API (`node --import tsx api/server/server.ts`), each a
 * child with the chaos stack's settings in its environment. Their output is kept for the
 * report of a failed row.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const SOULGRAPH_BIN = fileURLToPath(new URL('../bin/soulgraph.js', import.meta.url));
const API_ENTRY = fileURLToPath(new URL('../api/server/server.ts', import.meta.url));
const OUTPUT_KEPT = 64 * 1024;

export interface Child {
  process: ChildProcess;
  pid: number;
  startedAt: number;
  /** The last OUTPUT_KEPT characters of stdout and stderr together. */
  output(): string;
  /** Resolves once the process has ended, with how, and when. */
  exited: Promise<Exit>;
  kill(signal: NodeJS.Signals): void;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from the start of the process to its end. */
  afterMs: number;
}

function startChild(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const startedAt = Date.now();
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, afterMs: Date.now() - startedAt })),
  );
  return {
    process: child,
    pid: child.pid!,
    startedAt,
    output: () => output,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

export function startSoulgraph(args: string[], env: Record<string, string>): Child {
  return startChild([SOULGRAPH_BIN, ...args], env);
}

export function startApiProcess(env: Record<string, string>): Child {
  return startChild(['--import', 'tsx', API_ENTRY], env);
}

/** Runs a `soulgraph` command to its end. */
export async function runSoulgraph(args: string[], env: Record<string, string>): Promise<Exit & { output: string }> {
  const child = startSoulgraph(args, env);
  const exit = await child.exited;
  return { ...exit, output: child.output() };
}

/** The exit, or 'still running' once `timeoutMs` has passed (the process is then killed, so that nothing hangs the run). */
export async function exitWithin(child: Child, timeoutMs: number): Promise<Exit | 'still running'> {
  // Cancelled once the child exits: a pending timer would keep the chaos run alive for minutes after its table.
  const timer = new AbortController();
  // The abort comes after the race is decided, so its rejection is never the race's answer.
  const late = sleep(timeoutMs, 'still running' as const, { signal: timer.signal }).catch(() => 'still running' as const);
  const ended = await Promise.race([child.exited, late]);
  timer.abort();
  if (ended === 'still running') {
    child.kill('SIGKILL');
    await child.exited;
  }
  return ended;
}

/** Stops a long-running process as its operator would (SIGTERM), with SIGKILL after graceMs. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  child.kill('SIGTERM');
  await exitWithin(child, graceMs);
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(100);
  }
}
