/**
 * Live progress for long CLI work: a cli-progress bar on a terminal, and a plain line
 * every few seconds otherwise (CI logs, pipes), always on stderr so stdout stays clean.
 * Lines said while a bar is drawn go through `log`, above the bar, never into it.
 */
import cliProgress from 'cli-progress';

export interface ProgressDisplay {
  update(value: number, total: number, fields: Record<string, string | number>): void;
  /** A line of its own (above the bar on a terminal). */
  log(line: string): void;
  stop(): void;
}

export function createProgressDisplay(label: string, format: string): ProgressDisplay {
  return process.stderr.isTTY ? barDisplay(label, format) : lineDisplay(label, format);
}

function barDisplay(label: string, format: string): ProgressDisplay {
  // A MultiBar of one: it can print lines above the bar (SingleBar cannot).
  const bars = new cliProgress.MultiBar(
    { format: `${label} [{bar}] {percentage}% | ${format}`, stream: process.stderr, hideCursor: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | undefined;
  return {
    update(value, total, fields) {
      bar ??= bars.create(total, value, fields);
      bar.setTotal(total);
      bar.update(value, fields);
    },
    log: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}

export function lineDisplay(label: string, format: string, everyMs = 5_000, write: (text: string) => unknown = (text) => process.stderr.write(text)): ProgressDisplay {
  let last = 0;
  let latest: { value: number; total: number; fields: Record<string, string | number> } | undefined;
  let printed = true;
  const print = () => {
    if (!latest || printed) return;
    const percent = latest.total > 0 ? Math.floor((100 * latest.value) / latest.total) : 0;
    write(`${label} ${percent}% | ${fill(format, latest.fields)}\n`);
    printed = true;
  };
  return {
    update(value, total, fields) {
      latest = { value, total, fields };
      printed = false;
      if (Date.now() - last >= everyMs) {
        last = Date.now();
        print();
      }
    },
    log: (line) => write(`${line}\n`),
    // The final state, unless the last update already printed it.
    stop: print,
  };
}

function fill(format: string, fields: Record<string, string | number>): string {
  return format.replace(/\{(\w+)\}/g, (_, name: string) => String(fields[name] ?? ''));
}
