/**
 * How one of this project's processes starts another: through the launchers in bin/, which
 * run the compiled JavaScript when dist/ was built from the current sources and the
 * TypeScript through tsx otherwise (build/compiled-sources.js). The repository root is found
 * from this module's own place, one folder deeper when it runs compiled (dist/shared/process/).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const runsCompiled = import.meta.url.endsWith('.js');

export const PROJECT_ROOT = fileURLToPath(new URL(runsCompiled ? '../../../' : '../../', import.meta.url));

/** The CLI (`node <SOULGRAPH_BIN> workers`). */
export const SOULGRAPH_BIN = path.join(PROJECT_ROOT, 'bin', 'soulgraph.js');

/** Node's arguments that run an entry point given by its source path from the root (`api/server/server.ts`). */
export function entryPointArgs(sourcePath: string): string[] {
  return [path.join(PROJECT_ROOT, 'bin', 'run.js'), sourcePath];
}
