/**
 * A Redis of a test file's own, for tests that kill or stop it: doing that to the shared one
 * would break every other test file. Started before the file's tests, stopped after them.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startRedis } from '../../shared/local-stack/redis-server.ts';
import type { RunningService } from '../../shared/local-stack/running-service.ts';

export interface PrivateRedis {
  readonly url: string;
  readonly pid: number;
  /** SIGKILL, resolved once the process has ended. */
  kill(): Promise<void>;
  /** A new server on the same port and data directory. */
  startAgain(): Promise<void>;
}

export function usePrivateRedis(name: string): PrivateRedis {
  let dir: string;
  let redis: RunningService;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), `soulgraph-${name}-`));
    redis = await startRedis({ dir });
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    get url() {
      return redis.url;
    },
    get pid() {
      return redis.pid;
    },
    async kill() {
      process.kill(redis.pid, 'SIGKILL');
      await redis.exited;
    },
    async startAgain() {
      redis = await startRedis({ dir, port: Number(new URL(redis.url).port) });
    },
  };
}
