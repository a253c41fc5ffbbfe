/**
 * The soulgraph CLI run inside the test process (pipeline/cli/soulgraph.ts runCli): the same
 * commands, parsing and exit codes as `npx soulgraph`, without a child process and its
 * start-up (seconds of CPU each on a loaded machine). Tests whose point is the process
 * itself (signals, exit on a dead stack, what a shell captures) spawn it instead
 * (child-process.ts).
 */
import { runCli } from '../../pipeline/cli/soulgraph.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they were written, interleaved. */
  output: string;
}

/** One at a time: the environment and the standard streams are the process's own. */
let running: Promise<unknown> = Promise.resolve();

export function runCliInProcess(args: string[], env: Record<string, string>): Promise<CliRun> {
  const run = running.then(() => runWith(args, env));
  running = run.catch(() => undefined);
  return run;
}

async function runWith(args: string[], env: Record<string, string>): Promise<CliRun> {
  const saved = { env: { ...process.env }, stdout: process.stdout.write, stderr: process.stderr.write, exitCode: process.exitCode };
  const captured = { stdout: '', stderr: '', output: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      captured[stream] += text;
      captured.output += text;
      return true;
    }) as typeof process.stdout.write;
  Object.assign(process.env, env);
  process.exitCode = undefined;
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  try {
    const code = await runCli(args);
    return { code, ...captured };
  } finally {
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.exitCode = saved.exitCode;
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
  }
}
