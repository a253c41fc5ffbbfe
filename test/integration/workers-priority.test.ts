/**
 * `soulgraph workers` runs at WORKERS_NICE, every thread of it, so that on a machine that
 * also serves the API an ingest takes only the CPU the API leaves (bench:reads-under-ingest).
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let child: ReturnType<typeof spawnSoulgraph> | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await exitOf(child);
  }
});

/** Each thread's nice value, from /proc/<pid>/task/<tid>/stat (field 19). */
async function threadNiceValues(pid: number): Promise<number[]> {
  const tids = await readdir(`/proc/${pid}/task`);
  const stats = await Promise.all(tids.map((tid) => readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => undefined)));
  return stats.filter((s) => s !== undefined).map((stat) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
}

async function startedWorkers(nice: string): Promise<number> {
  child = spawnSoulgraph(['workers', '--kinds', 'transactions'], { ...env.env, LOG_LEVEL: 'info', WORKERS_NICE: nice });
  await waitFor(async () => /workers http server listening/.test(child!.output()), 30_000, 'the workers http server');
  return child.pid!;
}

describe.runIf(process.platform === 'linux')('the workers process', () => {
  it('runs every thread at WORKERS_NICE', async () => {
    const niceValues = await threadNiceValues(await startedWorkers('15'));
    expect(niceValues.length).toBeGreaterThan(4); // V8's and libuv's threads, not only the main one
    expect(new Set(niceValues)).toEqual(new Set([15]));
  }, 60_000);

  it('keeps the priority it was started with when WORKERS_NICE is 0', async () => {
    const niceValues = await threadNiceValues(await startedWorkers('0'));
    expect(new Set(niceValues)).toEqual(new Set([0]));
  }, 60_000);
});
