/**
 * A local custody network for tests: keys made by the real CLI (`soulgraph custodian
 * keygen`, at collection time, so the API harness can be given the public key), and one
 * real custodian process per share (`node --import tsx custodian/server.ts`) on a free port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { networkFileSchema, shareFileName, type NetworkFile } from '../../shared/custody/key-files.ts';
import { SOULGRAPH_BIN, exitOf, waitFor } from './child-process.ts';

const CUSTODIAN_SERVER = fileURLToPath(new URL('../../custodian/server.ts', import.meta.url));

export interface CustodianHarness {
  keyDir: string;
  network: NetworkFile;
  publicKey: string;
  threshold: number;
  /** Base URLs, custodian 1 first; filled before the tests run. */
  urls: string[];
  /** What the custodians logged (JSON lines). */
  output(): string;
  /** With `consecutivePorts`: custodian i listens on basePort + i - 1, as `soulgraph start` places them (CUSTODIAN_PORT). */
  basePort?: number;
}

export function useCustodians(options: { nodes?: number; threshold?: number; env?: Record<string, string>; consecutivePorts?: boolean } = {}): CustodianHarness {
  const nodes = options.nodes ?? 5;
  const threshold = options.threshold ?? 3;
  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'soulgraph-custodians-'));
  const keygen = spawnSync(
    process.execPath,
    [SOULGRAPH_BIN, 'custodian', 'keygen', '--nodes', String(nodes), '--threshold', String(threshold), '--out', keyDir],
    { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  if (keygen.status !== 0) throw new Error(`custodian keygen failed: ${keygen.stdout}${keygen.stderr}`);
  const network = networkFileSchema.parse(JSON.parse(readFileSync(path.join(keyDir, 'network.json'), 'utf8')));
  const children: ChildProcess[] = [];
  let logs = '';
  const harness: CustodianHarness = { keyDir, network, publicKey: network.publicKey, threshold, urls: [], output: () => logs };

  beforeAll(async () => {
    if (options.consecutivePorts) harness.basePort = await consecutiveFreePorts(nodes);
    harness.urls = await Promise.all(
      Array.from({ length: nodes }, async (_, i) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CUSTODIAN_SERVER], {
          env: {
            ...process.env,
            LOG_LEVEL: 'info',
            NODE_ENV: 'test',
            CUSTODIAN_SHARE_FILE: path.join(keyDir, shareFileName(i + 1)),
            CUSTODIAN_PORT: harness.basePort === undefined ? '0' : String(harness.basePort + i),
            ...options.env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        let port: number | undefined;
        let own = '';
        const onData = (data: Buffer) => {
          logs += data;
          own += data;
          const listening = /"port":(\d+),"index":\d+,"threshold":\d+,"msg":"custodian listening"/.exec(own);
          if (listening && port === undefined) port = Number(listening[1]);
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        await waitFor(async () => port !== undefined || child.exitCode !== null, 60_000, `custodian ${i + 1} to listen`);
        if (port === undefined) throw new Error(`custodian ${i + 1} exited: ${own}`);
        return `http://127.0.0.1:${port}`;
      }),
    );
  });
  afterAll(async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await exitOf(child);
      }),
    );
    rmSync(keyDir, { recursive: true, force: true });
  });
  return harness;
}

/** The first of `count` consecutive ports that were all free a moment ago. */
async function consecutiveFreePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const servers: Server[] = [];
    try {
      for (let i = 0; i < count; i++) {
        servers.push(
          await new Promise<Server>((resolve, reject) => {
            const server = createServer().once('error', reject);
            server.listen(base + i, '127.0.0.1', () => resolve(server));
          }),
        );
      }
      return base;
    } catch {
      // taken: try another range
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
