/**
 * Where ingestion runs on a host that also serves the API: `soulgraph workers` at
 * WORKERS_NICE, every thread of it, and with INGEST_CPUS each side on its own CPUs: workers
 * and the local stack's ClickHouse and queue Redis on those, the API and the serving Redis on
 * the others (bench:reads-under-ingest measures why).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { ensureLocalStack } from '../../shared/local-stack/local-stack.ts';
import { machineCpus } from '../../shared/cpu-affinity.ts';
import { formatCpuList } from '../../shared/cpu-list.ts';
import { exitOf, runSoulgraph, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let child: ReturnType<typeof spawnSoulgraph> | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await exitOf(child);
  }
});

/** Per thread: a field of /proc/<pid>/task/<tid>/status, or of stat (nice is stat's field 19). */
async function perThread<T>(pid: number, read: (status: string, stat: string) => T): Promise<T[]> {
  const tids = await readdir(`/proc/${pid}/task`);
  const files = await Promise.all(
    tids.map(async (tid) => {
      const dir = `/proc/${pid}/task/${tid}`;
      return Promise.all([readFile(`${dir}/status`, 'utf8'), readFile(`${dir}/stat`, 'utf8')]).catch(() => undefined);
    }),
  );
  return files.filter((f) => f !== undefined).map(([status, stat]) => read(status, stat));
}

const niceOf = (_: string, stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
const cpusOfThread = (status: string) => /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)![1]!;

async function startedWorkers(settings: Record<string, string>): Promise<number> {
  child = spawnSoulgraph(['workers', '--kinds', 'transactions'], { ...env.env, LOG_LEVEL: 'info', ...settings });
  await waitFor(async () => /workers http server listening/.test(child!.output()), 30_000, 'the workers http server');
  return child.pid!;
}

const cpus = machineCpus();
const ingestionCpu = String(cpus.at(-1));
const apiCpus = formatCpuList(cpus.slice(0, -1));

describe.runIf(process.platform === 'linux')('the workers process', () => {
  it('runs every thread at WORKERS_NICE', async () => {
    const niceValues = await perThread(await startedWorkers({ WORKERS_NICE: '15' }), niceOf);
    expect(niceValues.length).toBeGreaterThan(4); // V8's and libuv's threads, not only the main one
    expect(new Set(niceValues)).toEqual(new Set([15]));
  }, 60_000);

  it('keeps the priority it was started with when WORKERS_NICE is 0', async () => {
    const niceValues = await perThread(await startedWorkers({ WORKERS_NICE: '0' }), niceOf);
    expect(new Set(niceValues)).toEqual(new Set([0]));
  }, 60_000);
});

describe.runIf(process.platform === 'linux' && cpus.length >= 2)('a host split by INGEST_CPUS', () => {
  it('runs every thread of the workers on the ingestion CPUs', async () => {
    const threadCpus = await perThread(await startedWorkers({ INGEST_CPUS: ingestionCpu }), cpusOfThread);
    expect(threadCpus.length).toBeGreaterThan(4);
    expect(new Set(threadCpus)).toEqual(new Set([ingestionCpu]));
  }, 60_000);

  it('runs every thread of the API on the other CPUs', async () => {
    const api = spawn(process.execPath, [fileURLToPath(new URL('../../bin/run.js', import.meta.url)), 'api/server/server.ts'], {
      env: { ...process.env, ...env.env, LOG_LEVEL: 'info', API_PORT: '0', CURSOR_SECRET: 's'.repeat(40), INGEST_CPUS: ingestionCpu },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    api.stdout.on('data', (d) => (output += d));
    api.stderr.on('data', (d) => (output += d));
    try {
      await waitFor(async () => /listening/i.test(output), 30_000, `the API to listen (output so far: ${output})`);
      expect(new Set(await perThread(api.pid!, cpusOfThread))).toEqual(new Set([apiCpus]));
    } finally {
      api.kill('SIGTERM');
      await exitOf(api);
    }
  }, 60_000);

  it("starts the stack's ClickHouse and queue Redis on the ingestion CPUs, the serving Redis on the others", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-cpu-split-'));
    const stack = await ensureLocalStack(parseConfig({ INGEST_CPUS: ingestionCpu }), { dataDir, reuse: false });
    try {
      const state = JSON.parse(await readFile(path.join(dataDir, 'stack.json'), 'utf8')) as Record<'clickhouse' | 'redis' | 'servingRedis', { pid: number }>;
      const placed = async (pid: number) => new Set(await perThread(pid, cpusOfThread));
      expect(await placed(state.clickhouse.pid)).toEqual(new Set([ingestionCpu]));
      expect(await placed(state.redis.pid)).toEqual(new Set([ingestionCpu]));
      expect(await placed(state.servingRedis.pid)).toEqual(new Set([apiCpus]));
    } finally {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('stops the workers and the API with one line naming the setting when the split leaves the API no CPU', async () => {
    const settings = { ...env.env, INGEST_CPUS: formatCpuList(cpus) };
    const line = `soulgraph: INGEST_CPUS=${formatCpuList(cpus)} takes every CPU of this machine (${formatCpuList(cpus)}): leave at least one for the API\n`;
    const workers = await runSoulgraph(['workers', '--kinds', 'transactions'], settings);
    expect(workers).toEqual({ code: 1, output: line });
    const api = spawn(process.execPath, [fileURLToPath(new URL('../../bin/run.js', import.meta.url)), 'api/server/server.ts'], { env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    api.stderr.on('data', (d) => (stderr += d));
    expect((await exitOf(api)).code).toBe(1);
    expect(stderr).toBe(line);
  }, 60_000);
});
