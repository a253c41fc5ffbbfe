/**
 * Live progress for long CLI work: a cli-progress bar on a terminal, and a plain line
 * every few seconds otherwise (CI logs, pipes), always on stderr so stdout stays clean.
 */
import cliProgress from 'cli-progress';

export interface ProgressDisplay {
  update(value: number, total: number, fields: Record<string, string | number>): void;
  stop(): void;
}

export function createProgressDisplay(label: string, format: string): ProgressDisplay {
  return process.stderr.isTTY ? barDisplay(label, format) : lineDisplay(label, format);
}

function barDisplay(label: string, format: string): ProgressDisplay {
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | ${format}`, stream: process.stderr, hideCursor: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(value, total, fields) {
      if (!started) {
        bar.start(total, value, fields);
        started = true;
      }
      bar.setTotal(total);
      bar.update(value, fields);
    },
    stop: () => bar.stop(),
  };
}

function lineDisplay(label: string, format: string, everyMs = 5_000): ProgressDisplay {
  let last = 0;
  let latest: { value: number; total: number; fields: Record<string, string | number> } | undefined;
  const print = () => {
    if (!latest) return;
    const percent = latest.total > 0 ? Math.floor((100 * latest.value) / latest.total) : 0;
    process.stderr.write(`${label} ${percent}% | ${fill(format, latest.fields)}\n`);
  };
  return {
    update(value, total, fields) {
      latest = { value, total, fields };
      if (Date.now() - last >= everyMs) {
        last = Date.now();
        print();
      }
    },
    stop: print,
  };
}

function fill(format: string, fields: Record<string, string | number>): string {
  return format.replace(/\{(\w+)\}/g, (_, name: string) => String(fields[name] ?? ''));
}
