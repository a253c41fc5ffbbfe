/**
 * Starts current ClickHouse (the npm package `chdb`) behind its HTTP front (chdb-http.ts)
 * as a child process, for tests that run statements on both engines.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { stopChild } from '../../shared/local-stack/running-service.ts';
import type { RunningService } from '../../shared/local-stack/running-service.ts';

const FRONT = fileURLToPath(new URL('./chdb-http.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export async function startChdb(dataDir: string): Promise<RunningService> {
  const child = spawn(process.execPath, ['--import', 'tsx', FRONT, dataDir], {
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
  const ready = new Promise<{ port: number; version: string }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^listening (\d+) (\S+)$/.exec(line);
      if (match) resolve({ port: Number(match[1]), version: match[2]! });
    });
    child.once('exit', (code, signal) => reject(new Error(`chdb exited (${signal ?? code}) before it answered:\n${stderr}`)));
    setTimeout(() => reject(new Error(`chdb did not answer within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`)), START_TIMEOUT_MS).unref();
  });
  try {
    const { port, version } = await ready;
    return { url: `http://127.0.0.1:${port}`, pid: child.pid!, version, stop: () => stopChild(child, 10_000) };
  } catch (error) {
    await stopChild(child, 2_000);
    throw error;
  }
}
