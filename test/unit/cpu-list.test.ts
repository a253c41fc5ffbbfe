import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { ConfigError } from '../../shared/config-error.ts';
import { cpusOf } from '../../shared/cpu-affinity.ts';
import { formatCpuList, parseCpuList } from '../../shared/cpu-list.ts';

describe('a CPU list', () => {
  it('names single CPUs and ranges, each CPU once, ascending', () => {
    expect(parseCpuList('1')).toEqual([1]);
    expect(parseCpuList('2-4')).toEqual([2, 3, 4]);
    expect(parseCpuList('6,0-2,1')).toEqual([0, 1, 2, 6]);
  });

  it('is not a list when a range runs backwards or the text is anything else', () => {
    for (const text of ['3-1', '', '1,', 'a', '1 2', '-1', '1-', '0x1']) expect(parseCpuList(text), text).toBeUndefined();
  });

  it('is written with ranges for runs of three or more', () => {
    expect(formatCpuList([0, 1])).toBe('0,1');
    expect(formatCpuList([3, 0, 1, 2, 7, 9, 10])).toBe('0-3,7,9,10');
    expect(parseCpuList(formatCpuList([5, 1, 2, 3, 8]))).toEqual([1, 2, 3, 5, 8]);
  });
});

describe('INGEST_CPUS', () => {
  it('is unset when blank, a CPU list otherwise', () => {
    expect(parseConfig({ INGEST_CPUS: ' ' }).INGEST_CPUS).toBeUndefined();
    expect(parseConfig({ INGEST_CPUS: '2-3' }).INGEST_CPUS).toEqual([2, 3]);
  });

  it('stops the process with the variable named when it is not a CPU list', () => {
    expect(() => parseConfig({ INGEST_CPUS: '3-1' })).toThrow(/INGEST_CPUS.*must be a CPU list/);
  });

  it("gives ingestion its CPUs of the machine and the API the rest; unset, neither is confined", () => {
    const machine = [0, 1, 2, 3];
    expect(cpusOf('ingestion', [2, 3, 9], machine)).toEqual([2, 3]);
    expect(cpusOf('api', [2, 3, 9], machine)).toEqual([0, 1]);
    expect(cpusOf('api', undefined, machine)).toBeUndefined();
  });

  it('refuses a split that leaves either side without a CPU', () => {
    expect(() => cpusOf('api', [0, 1, 2, 3], [0, 1, 2, 3])).toThrow(new ConfigError('INGEST_CPUS=0-3 takes every CPU of this machine (0-3): leave at least one for the API'));
    expect(() => cpusOf('ingestion', [8], [0, 1])).toThrow(new ConfigError("INGEST_CPUS=8 names none of this machine's CPUs (0,1)"));
  });
});
