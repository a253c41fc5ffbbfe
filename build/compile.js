#!/usr/bin/env node
/**
 * `npm run build` (run by `npm ci` through the prepare script): compiles the code that runs
 * in the service's processes to dist/ (tsconfig.build.json, relative imports rewritten from
 * .ts to .js), copies beside it the files that code reads by path (migrations, Lua), and
 * stamps dist/ with the hash of the sources it was built from (build/compiled-sources.js).
 * With --if-stale it does nothing when dist/ is already current (the test setup uses that).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ASSET_EXTENSIONS, DIST, ROOT, buildInputs, compiledIsCurrent, sourceHash, writeStamp } from './compiled-sources.js';

if (process.argv.includes('--if-stale') && compiledIsCurrent()) process.exit(0);

// Hashed before compiling: a source edited during the build leaves dist/ not current, never wrongly current.
const hash = sourceHash();
rmSync(DIST, { recursive: true, force: true });
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed; dist/ is not current, so processes run the sources through tsx\n');
  process.exit(compiled.status ?? 1);
}
const assets = buildInputs().filter((file) => ASSET_EXTENSIONS.some((ext) => file.endsWith(ext)));
for (const file of assets) {
  mkdirSync(path.dirname(path.join(DIST, file)), { recursive: true });
  copyFileSync(path.join(ROOT, file), path.join(DIST, file));
}
writeStamp(hash);
process.stdout.write(`build: dist/ compiled from ${buildInputs().length} files (${assets.length} copied as they are)\n`);
