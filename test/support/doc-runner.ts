/**
 * Runs a Markdown document's examples the way a reader pastes them, and pairs what they
 * print with the output the document shows.
 *
 * The document's conventions (HTML comments, invisible when rendered):
 * - every ```bash / ```sh block runs, in order, in one bash session (variables carry over);
 *   every ```ts block runs too, all of a document's in one module, in order;
 * - the ```json and ```text blocks after a runnable block, up to the next runnable one, are
 *   what it prints on stdout, in order (`<!-- docs-test: stderr -->` before one: on stderr);
 * - `<!-- docs-test: not run (why) -->` before a block leaves it out (starting the stack,
 *   say), and `<!-- docs-test: not output -->` marks a json/text block that is an example
 *   rather than something the block above prints; `<!-- docs-test: any order -->` before a
 *   text output: its lines may come in any order (a ranking the docs do not pin down);
 * - a text output's lines must each be printed, with other lines allowed between (a
 *   command's chatter); `<!-- docs-test: every line -->` (or `every line, any order`) says
 *   the block shows all the block above prints, so that a list cannot grow unseen.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface DocBlock {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  marker: 'not run' | 'not output' | 'stderr' | 'any order' | 'every line' | 'every line, any order' | undefined;
}

export function docBlocks(markdown: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = markdown.split('\n');
  let marker: DocBlock['marker'];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = /^<!-- docs-test: (not run|not output|stderr|every line, any order|every line|any order)\b.*-->\s*$/.exec(line);
    if (comment) {
      marker = comment[1] as DocBlock['marker'];
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    blocks.push({ lang: fence[1]!.toLowerCase(), body: body.join('\n'), line: start + 1, marker });
    marker = undefined;
  }
  return blocks;
}

export const isShell = (b: DocBlock) => b.lang === 'bash' || b.lang === 'sh';
export const isOutput = (b: DocBlock) => (b.lang === 'json' || b.lang === 'text') && b.marker !== 'not output';

/** A runnable block with the output blocks that follow it. */
export interface Example {
  block: DocBlock;
  outputs: DocBlock[];
}

export function examples(blocks: DocBlock[]): Example[] {
  const found: Example[] = [];
  let current: Example | undefined;
  for (const block of blocks) {
    if (isShell(block) || block.lang === 'ts') {
      current = block.marker === 'not run' ? undefined : { block, outputs: [] };
      if (current) found.push(current);
    } else if (isOutput(block)) {
      current?.outputs.push(block);
    }
  }
  return found;
}

export interface Printed {
  stdout: string;
  stderr: string;
  code: number;
}

/** One bash session for a whole document: blocks run with `source`, so variables carry over. */
export class ShellSession {
  private readonly shell: ChildProcessWithoutNullStreams;
  private readonly dir: string;
  private pending = '';
  private waiting: ((line: string) => void) | undefined;
  private count = 0;

  constructor(env: Record<string, string>) {
    this.dir = path.join(REPO, '.data', `docs-run-${process.pid}-${Date.now()}`);
    mkdirSync(this.dir, { recursive: true });
    this.shell = spawn('bash', ['--noprofile', '--norc', '-s'], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.shell.stdout.on('data', (data: Buffer) => {
      this.pending += data;
      const end = this.pending.indexOf('\n');
      if (end >= 0 && this.waiting) {
        const line = this.pending.slice(0, end);
        this.pending = this.pending.slice(end + 1);
        this.waiting(line);
      }
    });
    // `npx soulgraph` runs this checkout's CLI directly: npm's own start-up adds nothing the docs test.
    this.shell.stdin.write(`npx() { if [ "$1" = soulgraph ]; then shift; node "${REPO}bin/soulgraph.js" "$@"; else command npx "$@"; fi; }; export -f npx\n`);
  }

  async run(script: string): Promise<Printed> {
    const n = ++this.count;
    const file = path.join(this.dir, `${n}.sh`);
    writeFileSync(file, `${script}\n`);
    const out = path.join(this.dir, `${n}.out`);
    const err = path.join(this.dir, `${n}.err`);
    const done = new Promise<string>((resolve) => (this.waiting = resolve));
    this.shell.stdin.write(`source ${file} >${out} 2>${err}; echo "done $?"\n`);
    const line = await done;
    return { stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8'), code: Number(line.split(' ')[1]) };
  }

  /** A variable of the session, as the blocks left it. */
  async variable(name: string): Promise<string> {
    return (await this.run(`printf '%s' "$${name}"`)).stdout;
  }

  close(): void {
    this.shell.stdin.end();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Runs TypeScript blocks as one module (from the checkout, so 'soulgraph/sdk' and viem
 * resolve), printing a separator before each block so that their outputs can be told apart.
 */
export async function runTypeScript(blocks: string[], env: Record<string, string>): Promise<{ outputs: string[]; stderr: string; code: number }> {
  const dir = path.join(REPO, '.data', `docs-ts-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'examples.mts');
  const SEPARATOR = '--- next block ---';
  writeFileSync(file, blocks.map((b) => `console.log(${JSON.stringify(SEPARATOR)});\n${b}`).join('\n'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
    return { outputs: stdout.split(`${SEPARATOR}\n`).slice(1), stderr, code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Values that differ from run to run: the same placeholder on both sides. */
const VOLATILE: [RegExp, string][] = [
  [/eyJ[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*){0,2}(…|\b)/g, '<jwt>'],
  [/sg_[0-9a-f]{12}_[A-Za-z0-9_-]{32}/g, '<api key>'],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  // The signing key's id: dev-… when npm start makes one up, test-… in the test harness.
  [/\b(dev|test)-[0-9a-f]{16}\b/g, '<kid>'],
  [/\b[0-9a-f]{32}\b/g, '<nonce>'],
  [/\b[0-9a-f]{12}\b/g, '<key id>'],
  [/^(RateLimit-Reset|Retry-After): \d+$/gm, '$1: <seconds>'],
];

export function normalized(text: string): string {
  return VOLATILE.reduce((t, [pattern, placeholder]) => t.replace(pattern, placeholder), text).replace(/[ \t]+/g, ' ').trim();
}

/** JSON keys whose values are new on every run (only their type is compared), and lists whose order is the recommender's. */
const VOLATILE_KEYS = new Set(['nonce', 'x', 'y', 'jti', 'iat', 'exp', 'encryptedString', 'encryptedSymmetricKey', 'dataToEncryptHash', 'ciphertext']);
const UNORDERED_KEYS = new Set(['list']);

/** Where `actual` differs from the documented JSON `expected`, as paths; [] when it matches. */
export function jsonDifferences(expected: unknown, actual: unknown, at = '$'): string[] {
  const key = at.split('.').at(-1)!;
  if (VOLATILE_KEYS.has(key)) return typeof expected === typeof actual ? [] : [`${at}: ${typeof actual}, documented ${typeof expected}`];
  if (key === 'cursor') return (expected === '') === (actual === '') && typeof actual === 'string' ? [] : [`${at}: ${JSON.stringify(actual)}, documented ${JSON.stringify(expected)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: not an array`];
    if (actual.length !== expected.length) return [`${at}: ${actual.length} items, documented ${expected.length}`];
    const [e, a] = UNORDERED_KEYS.has(key) ? [sortedByJson(expected), sortedByJson(actual)] : [expected, actual];
    return e.flatMap((item, i) => jsonDifferences(item, a[i], `${at}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: not an object`];
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].flatMap((k) => {
      if (!(k in expected)) return [`${at}.${k}: not documented`];
      if (!(k in actual)) return [`${at}.${k}: missing`];
      return jsonDifferences((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k], `${at}.${k}`);
    });
  }
  if (typeof expected === 'string' && typeof actual === 'string') {
    return normalized(expected) === normalized(actual) ? [] : [`${at}: ${JSON.stringify(actual)}, documented ${JSON.stringify(expected)}`];
  }
  return expected === actual ? [] : [`${at}: ${JSON.stringify(actual)}, documented ${JSON.stringify(expected)}`];
}

function sortedByJson(items: unknown[]): unknown[] {
  return [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

/** JSON values printed one after another (curl prints no newline after a body). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      if (depth === 0 && !inString) values.push(JSON.parse(text.slice(start, i + 1)));
      continue;
    }
    if (c === '"') {
      if (depth === 0) start = i;
      inString = true;
    } else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return values;
}

/**
 * Where the printed text lacks a documented line: documented lines in order (or in any
 * order), after normalizing; other lines may come between, unless every line is documented.
 */
export function textDifferences(expected: string, actual: string, anyOrder = false, everyLine = false): string[] {
  const printed: (string | undefined)[] = actual.split('\n').map(normalized);
  let from = 0;
  const missing: string[] = [];
  for (const line of expected.split('\n').map(normalized).filter(Boolean)) {
    const at = printed.indexOf(line, anyOrder ? 0 : from);
    if (at < 0) {
      missing.push(`not printed: ${line}`);
    } else {
      from = at + 1;
      if (anyOrder) printed[at] = undefined;
    }
  }
  if (everyLine) {
    const documented = new Set(expected.split('\n').map(normalized));
    missing.push(...printed.filter((line) => line && !documented.has(line)).map((line) => `printed, not documented: ${line}`));
  }
  return missing.length > 0 ? [...missing, `printed:\n${actual}`] : [];
}

/** Compares what a block printed with the output blocks the document shows for it. */
export function outputDifferences(outputs: DocBlock[], printed: { stdout: string; stderr: string }): string[] {
  const onStdout = outputs.filter((o) => o.marker !== 'stderr');
  const onStderr = outputs.filter((o) => o.marker === 'stderr');
  return [...streamDifferences(onStdout, printed.stdout), ...streamDifferences(onStderr, printed.stderr)];
}

function streamDifferences(outputs: DocBlock[], printed: string): string[] {
  if (outputs.length === 0) return [];
  if (outputs.every((o) => o.lang === 'json')) {
    const unreadable = outputs.filter((o) => !parses(o.body));
    if (unreadable.length > 0) return [...unreadable.map((o) => `(line ${o.line}) the documented JSON does not parse`), `printed:\n${printed}`];
    const values = jsonValues(printed);
    // One documented value for several printed ones: they all print the same ("All three name the same user").
    const expected = outputs.length === 1 && values.length > 1 ? values.map(() => JSON.parse(outputs[0]!.body)) : outputs.map((o) => JSON.parse(o.body));
    if (values.length !== expected.length) return [`printed ${values.length} JSON values, documented ${expected.length}: ${printed.slice(0, 2000)}`];
    const differences = expected.flatMap((e, i) => jsonDifferences(e, values[i]).map((d) => `(line ${outputs[Math.min(i, outputs.length - 1)]!.line}) ${d}`));
    return differences.length > 0 ? [...differences, `printed:\n${printed}`] : [];
  }
  return outputs.flatMap((o) =>
    textDifferences(o.body, printed, o.marker === 'any order' || o.marker === 'every line, any order', o.marker?.startsWith('every line')).map((d) => `(line ${o.line}) ${d}`),
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
