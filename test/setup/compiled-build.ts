/**
 * The processes tests spawn (bin/soulgraph.js, bin/run.js) run dist/ when it was built from
 * the current sources, and the TypeScript through tsx otherwise (build/compiled-sources.js).
 * Building first when a source changed makes them run what `npm ci` gives users, start fast,
 * and never print the fallback hint into output a test reads.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const COMPILE = fileURLToPath(new URL('../../build/compile.js', import.meta.url));

export function setup(): void {
  execFileSync(process.execPath, [COMPILE, '--if-stale'], { stdio: 'inherit' });
}
