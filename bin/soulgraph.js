#!/usr/bin/env node
// The CLI: compiled (dist/) when built from the current sources, otherwise the TypeScript
// through tsx, so that `npx soulgraph` works on a fresh clone and after any edit (build/compiled-sources.js).
import { entryUrl } from '../build/compiled-sources.js';

const { runCli } = await import(await entryUrl('pipeline/cli/soulgraph.ts'));
process.exitCode = await runCli(process.argv.slice(2));
