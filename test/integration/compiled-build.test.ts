/**
 * `npm run build` and the launchers in bin/ (build/compiled-sources.js): processes run the
 * compiled JavaScript of dist/ while it was built from the sources as they are, and the
 * TypeScript through tsx, with a one-line hint, once they differ. Built in a copy of the
 * repository, so that the dist/ other test files' processes run is never touched.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RUNTIME_DIRS = ['shared', 'pipeline', 'api', 'custodian', 'sdk'];
const HINT = /^soulgraph: dist\/ was not built from these sources: running them through tsx \(`npm run build` to start faster\)$/;

let root: string;

/** Runs node with these arguments in the copy; never rejects. */
function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env: { ...process.env, SOULGRAPH_BUILD_HINT_SHOWN: '', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function files(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'soulgraph-build-'));
  for (const entry of [...RUNTIME_DIRS, 'bin', 'build', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(path.join(REPO, entry), path.join(root, entry), { recursive: true, filter: (source) => !source.endsWith('.test.ts') });
  }
  symlinkSync(realpathSync(path.join(REPO, 'node_modules')), path.join(root, 'node_modules'));
  const built = await node(['build/compile.js']);
  expect(built.code, built.stdout + built.stderr).toBe(0);
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm run build', () => {
  it('is what npm ci runs (the prepare script)', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.prepare).toBe('npm run build');
    expect(scripts.build).toBe('node build/compile.js');
  });

  it('compiles every runtime module to dist/, with the migrations and Lua scripts beside them', () => {
    const sources = RUNTIME_DIRS.flatMap(files);
    const modules = sources.filter((file) => file.endsWith('.ts'));
    const assets = sources.filter((file) => file.endsWith('.sql') || file.endsWith('.lua'));
    expect(modules.length).toBeGreaterThan(200);
    expect(assets).toContain('api/recommend/served-page.lua');
    expect(assets.filter((file) => file.startsWith('shared/clickhouse/migrations/')).length).toBeGreaterThan(10);
    for (const file of modules) expect(existsSync(path.join(root, 'dist', file.replace(/\.ts$/, '.js'))), file).toBe(true);
    for (const file of assets) expect(readFileSync(path.join(root, 'dist', file), 'utf8'), file).toBe(readFileSync(path.join(root, file), 'utf8'));
  });

  it('leaves no relative import of a .ts file in dist/', () => {
    const tsImports = files('dist')
      .filter((file) => file.endsWith('.js'))
      .filter((file) => /(from |import\()\s*'\.{1,2}\/[^']*\.ts'/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(tsImports).toEqual([]);
  });
});

describe('the launchers in bin/', () => {
  it('answer --help from dist/, with no hint, when dist/ was built from these sources', async () => {
    const { code, stdout, stderr } = await node(['bin/soulgraph.js', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: soulgraph /);
    expect(stderr).toBe('');
  });

  it('run an entry point compiled through bin/run.js, which sees itself as the script', async () => {
    const { code, stderr } = await node(['bin/run.js', 'custodian/server.ts'], { CUSTODIAN_SHARE_FILE: '' });
    expect(code).toBe(1);
    expect(stderr).toContain('CUSTODIAN_SHARE_FILE is not set');
    expect(stderr).toContain(path.join('dist', 'custodian', 'server.js'));
  });

  it('keep running dist/ when a source is touched but its contents are the same', async () => {
    const future = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'pipeline/cli/text-table.ts'), future, future);
    const { code, stderr } = await node(['bin/soulgraph.js', '--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('run the sources through tsx, saying so in one line, once a source differs from the build', async () => {
    const source = path.join(root, 'custodian/server.ts');
    const original = readFileSync(source, 'utf8');
    appendFileSync(source, '// edited after the build\n');
    try {
      const cli = await node(['bin/soulgraph.js', '--help']);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toMatch(/^Usage: soulgraph /);
      expect(cli.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(HINT)]);
      const custodian = await node(['bin/run.js', 'custodian/server.ts'], { CUSTODIAN_SHARE_FILE: '' });
      expect(custodian.stderr).toContain(path.join(root, 'custodian', 'server.ts'));
      expect(custodian.stderr).not.toContain(path.join('dist', 'custodian'));
    } finally {
      writeFileSync(source, original);
    }
  });

  it('run the sources, without the hint, when SOULGRAPH_FROM_SOURCES=1', async () => {
    const { code, stderr } = await node(['bin/run.js', 'custodian/server.ts'], { CUSTODIAN_SHARE_FILE: '', SOULGRAPH_FROM_SOURCES: '1' });
    expect(code).toBe(1);
    expect(stderr).toContain(path.join(root, 'custodian', 'server.ts'));
    expect(stderr).not.toMatch(/^soulgraph: dist\//m);
  });

  it('run the sources through tsx when there is no dist/', async () => {
    renameSync(path.join(root, 'dist'), path.join(root, 'dist-away'));
    try {
      const { code, stdout, stderr } = await node(['bin/soulgraph.js', '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: soulgraph /);
      expect(stderr.trimEnd()).toMatch(HINT);
    } finally {
      renameSync(path.join(root, 'dist-away'), path.join(root, 'dist'));
    }
  });
});
