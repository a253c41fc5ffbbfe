/**
 * npm run bench:cli: how long the CLI takes to answer `--help` and `<command> --help`
 * (start-up: Node, the launcher, the command's own modules), compiled (dist/, what
 * `npm ci` builds) side by side with the same sources through tsx (SOULGRAPH_FROM_SOURCES=1),
 * round by round so that both see the same load. Node's own start (`node -e 0`) is the floor.
 * Target (issue 24): `node bin/soulgraph.js --help` answers in under 0.3 s on a quiet machine.
 *
 *   BENCH_ROUNDS=5   BENCH_COMMANDS=apikey,status   (default: every command)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../pipeline/cli/soulgraph.ts';
import { median } from './median.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Math.max(Number(process.env.BENCH_ROUNDS ?? 5), 1);
const COMMAND_NAMES = process.env.BENCH_COMMANDS?.split(',') ?? Object.keys(COMMANDS);
const TARGET_SECONDS = 0.3;
/** GNU time gives the child's CPU seconds, steadier than wall time on a shared machine; without it, wall time only. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Sample {
  wall: number;
  cpu: number | undefined;
}

function run(args: string[], env: Record<string, string>): Sample {
  const command = GNU_TIME ? [GNU_TIME, '-f', '%U %S', process.execPath, ...args] : [process.execPath, ...args];
  const started = performance.now();
  const child = spawnSync(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  const wall = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  const times = GNU_TIME ? /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(child.stderr) : null;
  return { wall, cpu: times ? Number(times[1]) + Number(times[2]) : undefined };
}

const seconds = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(2));

function summary(samples: Sample[]) {
  const cpus = samples.map((s) => s.cpu).filter((c): c is number => c !== undefined);
  return { min: Math.min(...samples.map((s) => s.wall)), median: median(samples.map((s) => s.wall)), cpu: cpus.length ? median(cpus) : undefined };
}

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
console.error(`building dist/ if a source changed since the last build; load average ${load()}`);
execFileSync(process.execPath, ['build/compile.js', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });

const cases: Array<{ label: string; args: string[] }> = [
  { label: '`node -e 0` (floor)', args: ['-e', '0'] },
  { label: '`--help`', args: ['bin/soulgraph.js', '--help'] },
  ...COMMAND_NAMES.map((name) => ({ label: `\`${name} --help\``, args: ['bin/soulgraph.js', name, '--help'] })),
];

const rows: string[] = [];
let helpMin = Infinity;
for (const { label, args } of cases) {
  const compiled: Sample[] = [];
  const sources: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first spreads a burst of someone else's load over both.
    const order = round % 2 === 0 ? [compiled, sources] : [sources, compiled];
    for (const samples of order) samples.push(run(args, { SOULGRAPH_FROM_SOURCES: samples === sources ? '1' : '' }));
  }
  const c = summary(compiled);
  const s = summary(sources);
  if (label === '`--help`') helpMin = c.min;
  const ratio = c.cpu !== undefined && s.cpu !== undefined ? (c.cpu / s.cpu).toFixed(2) : (c.median / s.median).toFixed(2);
  const row = `| ${label} | ${seconds(s.min)} / ${seconds(s.median)} | ${seconds(s.cpu)} | ${seconds(c.min)} / ${seconds(c.median)} | ${seconds(c.cpu)} | ${ratio} |`;
  rows.push(row);
  console.error(row);
}

console.log(`\nCLI start-up, ${ROUNDS} rounds, load average after: ${load()} (wall: min / median s; CPU: median s; ratio: compiled / tsx, CPU)\n`);
console.log('| command | tsx wall | tsx CPU | compiled wall | compiled CPU | ratio |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`\n--help compiled, fastest round: ${helpMin.toFixed(2)} s; target < ${TARGET_SECONDS} s: ${helpMin < TARGET_SECONDS ? 'met' : 'NOT met'}`);
console.log('reproduce: npm run bench:cli');
