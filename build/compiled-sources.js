/**
 * Whether dist/ (`npm run build`, which `npm ci` runs) was compiled from the sources as they
 * are now, and how a process loads one of the project's entry points accordingly.
 *
 * The build records a hash of every file it reads (the TypeScript, the SQL and Lua it copies,
 * its tsconfig files). A process runs the compiled JavaScript only while the sources still
 * hash the same; after any edit it runs the sources through tsx, with a one-line hint, so a
 * developer never silently runs stale code. Hashing contents (about 1 MB, a few milliseconds)
 * rather than comparing modification times keeps the answer right across `git checkout`,
 * copies and container builds, which change times but not contents. SOULGRAPH_FROM_SOURCES=1
 * runs the sources whatever dist/ holds, without the hint (npm run bench:cli compares both).
 *
 * Plain JavaScript: it runs before anything could compile TypeScript.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = path.join(ROOT, 'dist');
/** The folders whose code runs in the service's processes (tests, benchmarks and chaos drills run through tsx). */
export const SOURCE_DIRS = ['shared', 'pipeline', 'api', 'custodian', 'sdk'];
/** Read by path at run time (migrations, Redis scripts): copied into dist/ beside the compiled modules. */
export const ASSET_EXTENSIONS = ['.sql', '.lua'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];
/** In dist/: the source hash it was built from. */
const STAMP = '.source-hash';
/** Set in a process that fell back to tsx, so that its children do not repeat the hint. */
const HINTED = 'SOULGRAPH_BUILD_HINT_SHOWN';

/** Paths (relative to the root, sorted) of the files the build reads: sources and assets. */
export function buildInputs(root = ROOT) {
  const files = SOURCE_DIRS.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && isBuildInput(entry.name))
      .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name))),
  );
  return [...files.sort(), ...CONFIG_FILES];
}

function isBuildInput(name) {
  return (name.endsWith('.ts') && !name.endsWith('.test.ts')) || ASSET_EXTENSIONS.some((ext) => name.endsWith(ext));
}

/** One hash of the build inputs' paths and contents. */
export function sourceHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) hash.update(`${file}\0`).update(readFileSync(path.join(root, file))).update('\0');
  return hash.digest('hex');
}

/** Written last by the build, so that a build that fails half-way leaves dist/ not current. */
export function writeStamp(hash, dist = DIST) {
  writeFileSync(path.join(dist, STAMP), `${hash}\n`);
}

/** True when dist/ exists and was built from the sources as they are now. */
export function compiledIsCurrent(root = ROOT) {
  let stamp;
  try {
    stamp = readFileSync(path.join(root, 'dist', STAMP), 'utf8').trim();
  } catch {
    return false;
  }
  return stamp === sourceHash(root);
}

/**
 * The module URL to import for an entry point given by its source path (`api/server/server.ts`):
 * the compiled one when dist/ is current; otherwise the source, with tsx registered.
 */
export async function entryUrl(sourcePath) {
  const fromSources = process.env.SOULGRAPH_FROM_SOURCES === '1';
  if (!fromSources && compiledIsCurrent()) return pathToFileURL(path.join(DIST, sourcePath.replace(/\.ts$/, '.js'))).href;
  if (!fromSources && !process.env[HINTED]) {
    process.stderr.write('soulgraph: dist/ was not built from these sources: running them through tsx (`npm run build` to start faster)\n');
    process.env[HINTED] = '1';
  }
  const { register } = await import('tsx/esm/api');
  register();
  return pathToFileURL(path.join(ROOT, sourcePath)).href;
}
