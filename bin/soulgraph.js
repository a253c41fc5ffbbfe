#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so that `npx soulgraph` works on a fresh clone without a build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../pipeline/cli/soulgraph.ts');
process.exitCode = await runCli(process.argv.slice(2));
