#!/usr/bin/env node
// `node bin/run.js api/server/server.ts` (or custodian/server.ts): runs a process entry point compiled
// when dist/ was built from the current sources, otherwise through tsx (build/compiled-sources.js).
import { fileURLToPath } from 'node:url';
import { entryUrl } from '../build/compiled-sources.js';

const [entry] = process.argv.splice(2, 1);
if (!entry) {
  process.stderr.write('usage: node bin/run.js <entry point, e.g. api/server/server.ts> [arguments]\n');
  process.exit(2);
}
const url = await entryUrl(entry);
// The entry point then sees itself as the script (its `import.meta.url === file://argv[1]` check).
process.argv[1] = fileURLToPath(url);
await import(url);
