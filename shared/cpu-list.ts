/**
 * Linux's CPU list format (`1`, `2-3`, `0-3,8`), as taskset, cgroup cpusets and
 * /sys/devices/system/cpu/online write it: INGEST_CPUS is given in it (shared/config.ts).
 */

export const CPU_LIST_PATTERN = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/** The CPUs a list names, ascending, each once; undefined for text that is not a CPU list (or a range such as 3-1). */
export function parseCpuList(text: string): number[] | undefined {
  if (!CPU_LIST_PATTERN.test(text)) return undefined;
  const cpus = new Set<number>();
  for (const part of text.split(',')) {
    const [first, last = first] = part.split('-').map(Number) as [number, number?];
    if (last < first) return undefined;
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The shortest list for these CPUs: runs of three or more become ranges. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else parts.push(...sorted.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return parts.join(',');
}
