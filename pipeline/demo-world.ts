/**
 * The demo world `soulgraph start` loads into an empty database: DEMO_PROFILES generated
 * profiles (seed DEMO_SEED) plus, outside production, the demo users whose wallet keys are
 * public (generate/demo-users.ts). Tests that run the docs load exactly this world.
 */
import path from 'node:path';
import type { Config } from '../shared/config.ts';
import type { KindName } from '../shared/records/kinds.ts';
import { generateWorld, type WorldManifest } from './generate/world-generator.ts';
import { runIngest } from './ingest/ingest-run.ts';

/** Profiles first: the rest refers to them. */
export const DEMO_ORDER: KindName[] = [
  'profiles',
  'social-follows',
  'follows',
  'address-labels',
  'transactions',
  'token-transfers',
  'nft-collections',
  'nft-transfers',
  'sbt-issuers',
  'sbt-mints',
];

/** Known private keys have no place in a production database. */
export function demoUsersAllowed(config: Pick<Config, 'NODE_ENV'>): boolean {
  return config.NODE_ENV !== 'production';
}

export interface DemoKindProgress {
  kind: KindName;
  rowsDone: number;
  rows: number;
}

/** Generates the demo world into <DATA_DIR>/demo and ingests it kind by kind; workers must be running. */
export async function ingestDemoWorld(config: Config, onProgress: (p: DemoKindProgress) => void = () => {}, pollMs?: number): Promise<WorldManifest> {
  const outDir = demoWorldDir(config);
  const manifest = await generateWorld({ profiles: config.DEMO_PROFILES, seed: config.DEMO_SEED, outDir, demoUsers: demoUsersAllowed(config) });
  for (const kind of DEMO_ORDER) {
    const file = manifest.files[kind];
    if (!file) continue;
    onProgress({ kind, rowsDone: 0, rows: file.rows });
    const summary = await runIngest(config, {
      kind,
      files: [path.join(outDir, file.file)],
      format: 'canonical',
      chunkRows: config.INGEST_CHUNK_ROWS,
      sourceName: (f) => `demo/${path.basename(f)}`,
      onProgress: (p) => onProgress({ kind, rowsDone: p.rowsDone, rows: file.rows }),
      ...(pollMs === undefined ? {} : { pollMs }),
    });
    if (summary.failedChunks.length > 0) throw new Error(`demo ${kind}: ${summary.failedChunks[0]!.reason}`);
  }
  return manifest;
}

export function demoWorldDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'demo');
}
