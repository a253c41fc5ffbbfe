/**
 * A host that runs ingestion beside the API can split its CPUs between them (INGEST_CPUS,
 * shared/config.ts): ingestion (`soulgraph workers`, `soulgraph ingest`, the local stack's
 * ClickHouse and queue Redis) runs only on those CPUs, the API and the serving Redis only on
 * the others. A nice value alone does not keep reads fast: on two cores with every ingestion
 * process at SCHED_IDLE, recommend's p99 stayed at 2.9 x its quiet value, while cores of
 * their own bring it to about 1 x (docs/benchmarks.md, bench:reads-under-ingest).
 *
 * Node has no call for sched_setaffinity, so this runs util-linux's taskset: Linux only.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { ConfigError } from './config-error.ts';
import { defaultSearchDirs, findExecutable, type Command } from './local-stack/binaries.ts';
import { formatCpuList, parseCpuList } from './cpu-list.ts';

/** Which side of a shared host a process serves. */
export type CpuSide = 'ingestion' | 'api';

/**
 * The CPUs a side runs on, or undefined when INGEST_CPUS is unset (no split). Throws a
 * ConfigError when the split leaves a side without a CPU of this machine.
 */
export function cpusOf(side: CpuSide, ingestCpus: readonly number[] | undefined, machine: readonly number[] = machineCpus()): number[] | undefined {
  if (ingestCpus === undefined) return undefined;
  const ingestion = machine.filter((cpu) => ingestCpus.includes(cpu));
  const api = machine.filter((cpu) => !ingestCpus.includes(cpu));
  const setting = `INGEST_CPUS=${formatCpuList(ingestCpus)}`;
  if (ingestion.length === 0) throw new ConfigError(`${setting} names none of this machine's CPUs (${formatCpuList(machine)})`);
  if (api.length === 0) throw new ConfigError(`${setting} takes every CPU of this machine (${formatCpuList(machine)}): leave at least one for the API`);
  return side === 'ingestion' ? ingestion : api;
}

/**
 * Confines this process to its side's CPUs when INGEST_CPUS splits the host; else does nothing.
 * Each entry point calls it first; the CLI before its command's modules load, so that even
 * an ingest's start-up stays off the API's CPUs.
 */
export function confineToSide(side: CpuSide, ingestCpus: readonly number[] | undefined): void {
  const cpus = cpusOf(side, ingestCpus);
  if (cpus) confineProcess(process.pid, cpus);
}

/** The machine's online CPUs. */
export function machineCpus(): number[] {
  try {
    const online = parseCpuList(readFileSync('/sys/devices/system/cpu/online', 'utf8').trim());
    if (online) return online;
  } catch {
    // Not Linux: confining fails below, with its own message.
  }
  return os.cpus().map((_, index) => index);
}

/** Moves every thread of a running process onto these CPUs; threads it starts later inherit them. */
export function confineProcess(pid: number, cpus: readonly number[]): void {
  execFileSync(taskset(), ['--all-tasks', '--cpu-list', '--pid', formatCpuList(cpus), String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The command started through taskset, so that the server's first thread is already on these CPUs. */
export function commandOnCpus(command: Command, cpus: readonly number[] | undefined): Command {
  if (cpus === undefined) return command;
  return { file: taskset(), args: ['--cpu-list', formatCpuList(cpus), command.file, ...command.args] };
}

function taskset(): string {
  const file = findExecutable('taskset', defaultSearchDirs());
  if (!file) throw new ConfigError('INGEST_CPUS needs taskset (util-linux, Linux only): install util-linux, or unset INGEST_CPUS');
  return file;
}
