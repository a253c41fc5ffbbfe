/**
 * The folder layout is the architecture (README, "Layout"; api/README.md): api/ and pipeline/
 * depend on shared/ and never on each other; shared/ depends on neither; shared/process/
 * (what an entry point starts with: the stack, the schema) sits on top of shared/ and only
 * entry points import it; and no module imports itself through others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAYERS = ['api', 'pipeline', 'shared'];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** Each source file's relative imports (import and export ... from, type-only too), as paths from the root. */
const graph = new Map(
  LAYERS.flatMap(sourceFiles).map((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => path.join(path.dirname(file), m[1]!));
    return [file, targets] as const;
  }),
);

const importsOf = (from: (file: string) => boolean, to: (file: string) => boolean) =>
  [...graph].flatMap(([file, targets]) => (from(file) ? targets.filter(to).map((target) => `${file} -> ${target}`) : []));

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

/** Every file that reaches itself, with one path back. */
function cycles(): string[][] {
  const found: string[][] = [];
  for (const start of graph.keys()) {
    const seen = new Set<string>();
    const walk = (file: string, trail: string[]): string[] | undefined => {
      for (const next of graph.get(file) ?? []) {
        if (next === start) return [...trail, next];
        if (seen.has(next)) continue;
        seen.add(next);
        const back = walk(next, [...trail, next]);
        if (back) return back;
      }
      return undefined;
    };
    const back = walk(start, [start]);
    if (back) found.push(back);
  }
  return found;
}

describe('the import graph', () => {
  it('is read from every source file', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('api/server/server.ts')).toContain('shared/process/process-context.ts');
  });

  it('has api/ and pipeline/ depend on shared/ and never on each other', () => {
    expect(importsOf(under('api'), under('pipeline'))).toEqual([]);
    expect(importsOf(under('pipeline'), under('api'))).toEqual([]);
    expect(importsOf(under('shared'), (f) => under('api')(f) || under('pipeline')(f))).toEqual([]);
  });

  it('has api/common/ import no feature of api/, and nothing in api/ but api/server/ import api/server/', () => {
    const api = under('api');
    expect(importsOf(under('api/common'), (f) => api(f) && !under('api/common')(f))).toEqual([]);
    expect(importsOf((f) => api(f) && !under('api/server')(f), under('api/server'))).toEqual([]);
  });

  it('has shared/process/ imported by entry points only, never by the rest of shared/', () => {
    expect(importsOf((f) => under('shared')(f) && !under('shared/process')(f), under('shared/process'))).toEqual([]);
  });

  it('has no circle', () => {
    expect(cycles()).toEqual([]);
  });
});
