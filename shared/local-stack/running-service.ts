/**
 * What clickhouse-server.ts and redis-server.ts share: spawning a server child,
 * waiting until it answers, stopping it, and making sure it dies with us.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from './binaries.ts';

export interface RunningService {
  url: string;
  pid: number;
  /** Server version as the server reports it, e.g. "18.16.1". */
  version: string;
  /** SIGTERM, wait for exit, SIGKILL after a grace period. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the server process has ended, however, with a one-line reason (for supervision). */
  exited?: Promise<string>;
  /** Starts the server again on the same address and data (after it died). */
  restart?: () => Promise<RunningService>;
}

export interface SpawnedServer {
  child: ChildProcess;
  pid: number;
  /** Last few KB the server wrote to stderr: the only trace of errors raised before its logger is set up. */
  stderrTail(): string;
  /** Resolves when the process has exited (or failed to spawn), with a one-line reason. */
  exited: Promise<string>;
}

const STDERR_TAIL_BYTES = 4096;
const PROBE_INTERVAL_MS = 100;
const LOG_TAIL_BYTES = 4096;

export function spawnServer(command: Command, args: string[], cwd: string): SpawnedServer {
  // detached:false keeps the server in our process group, so a Ctrl-C in a terminal reaches it too.
  const child = spawn(command.file, [...command.args, ...args], { cwd, detached: false, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run ${command.file}: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `exited on ${signal}` : `exited with code ${code}`));
  });
  if (child.pid === undefined) return { child, pid: -1, stderrTail: () => tail, exited };
  const pid = child.pid;
  killOnExit(pid);
  void exited.then(() => releaseOnExit(pid));
  return { child, pid, stderrTail: () => tail, exited };
}

export interface ReadinessCheck {
  name: string;
  timeoutMs: number;
  /** True once the server answers; must not throw. */
  probe: () => Promise<boolean>;
  /** Extra text (log tails) for the error when the server dies or never answers. */
  diagnostics: () => Promise<string>;
}

/** Resolves once probe() succeeds; rejects as soon as the process exits, or at the timeout. Kills the server on failure. */
export async function waitUntilReady(server: SpawnedServer, check: ReadinessCheck): Promise<void> {
  let exitReason: string | undefined;
  void server.exited.then((reason) => (exitReason = reason));
  const deadline = Date.now() + check.timeoutMs;
  while (exitReason === undefined && Date.now() < deadline) {
    if (await check.probe()) return;
    await sleep(PROBE_INTERVAL_MS);
  }
  const problem = exitReason ?? `did not answer within ${check.timeoutMs / 1000} s`;
  await stopChild(server.child, 2_000);
  throw new Error(`${check.name} ${problem}.${formatDiagnostics(await check.diagnostics())}`);
}

function formatDiagnostics(text: string): string {
  const trimmed = text.trim();
  return trimmed ? `\n${trimmed}` : '';
}

/** Stops a child we spawned: SIGTERM, then SIGKILL if it is still running after graceMs. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (hasExited(child)) return;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exit;
  clearTimeout(timer);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

/** Stops a process that is not our child (adopted from a dead owner), by polling since we get no exit event. */
export async function stopPid(pid: number, graceMs: number): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) {
      signal(pid, 'SIGKILL');
      await sleep(50);
      if (!isProcessAlive(pid)) return;
    }
    await sleep(PROBE_INTERVAL_MS);
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** A spawned server that answers, as a RunningService: stopped with SIGTERM (SIGKILL after graceMs), started again by `restart`. */
export function runningService(
  server: SpawnedServer,
  started: { url: string; version: string; stopGraceMs: number; restart: () => Promise<RunningService> },
): RunningService {
  const { url, version, stopGraceMs, restart } = started;
  return { url, pid: server.pid, version, stop: once(() => stopChild(server.child, stopGraceMs)), exited: server.exited, restart };
}

/** Wraps stop so that a second call returns the first call's promise. */
export function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}

/**
 * freePort() hands out a port that another process may take before our server binds it.
 * Such a clash shows as "Address already in use"; starting again with fresh ports fixes it.
 */
export async function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const clash = error instanceof Error && /address already in use/i.test(error.message);
      if (!clash || attempt >= attempts) throw error;
    }
  }
}

// Servers this process owns. 'exit' handlers cannot await, so on exit they get a synchronous SIGKILL:
// a crashed parent must not leave servers behind holding ports and data directories.
const killedOnExit = new Set<number>();
let exitHandlerInstalled = false;

export function killOnExit(pid: number): void {
  killedOnExit.add(pid);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const owned of killedOnExit) signal(owned, 'SIGKILL');
  });
}

export function releaseOnExit(pid: number): void {
  killedOnExit.delete(pid);
}

export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** What was appended to a log since `start` (at most the last few KB): this run's errors, not old ones. */
export async function readAppendedSince(path: string, start: number): Promise<string> {
  try {
    const file = await open(path, 'r');
    try {
      const end = (await file.stat()).size;
      const from = Math.max(start, end - LOG_TAIL_BYTES);
      const buffer = Buffer.alloc(Math.max(0, end - from));
      await file.read(buffer, 0, buffer.length, from);
      return buffer.toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return '';
  }
}
