/**
 * Writes a deterministic demo world: one JSON Lines file per record kind plus
 * manifest.json. Same (profiles, seed, chainId) gives byte-identical files, and a kind's
 * file does not depend on which other kinds are generated: every kind draws from its own
 * random streams, keyed by (seed, kind, unit).
 *
 * Memory stays flat in the number of profiles' edges: files are streamed unit by unit
 * (a unit is usually one profile), and per-profile state lives in a few typed arrays.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KindName } from '../../shared/records/kinds.ts';
import { addressLabelSource } from './address-labels.ts';
import { demoPlan, demoRecords, withDemoRecords, type DemoPlan } from './demo-users.ts';
import { JsonlWriter } from './jsonl-writer.ts';
import type { KindSource } from './kind-source.ts';
import { nftCollectionSource, nftTransferSource } from './nfts.ts';
import { profileSource } from './profiles.ts';
import { sbtIssuerSource, sbtMintSource } from './sbts.ts';
import { appFollowSource, socialFollowSource } from './social-graph.ts';
import { tokenTransferSource } from './token-transfers.ts';
import { transactionSource } from './transactions.ts';
import { createWorld, type World } from './world.ts';

export interface GenerateProgress {
  phase: string;
  done: number;
  total: number;
}

export interface GenerateOptions {
  profiles: number;
  seed: number;
  outDir: string;
  /** Only these kinds' files are written; default: every generated kind. */
  kinds?: KindName[];
  /** Default 1 (Ethereum mainnet). */
  chainId?: number;
  /** Multiplies the in-app follows per profile (default 1: about 7 on average); benchmarks use denser graphs. */
  appFollowScale?: number;
  /** Add the demo users (demo-users.ts), whose wallet keys are public: demos only. */
  demoUsers?: boolean;
  onProgress?: (p: GenerateProgress) => void;
}

export interface WorldManifest {
  seed: number;
  profiles: number;
  /** The demo users' profileIds, when the world has them. */
  demoUsers?: string[];
  files: Record<string, { file: string; rows: number }>;
}

/** Invites are written by the auth endpoint, never generated. */
export type GeneratedKind = Exclude<KindName, 'invites'>;

/** In generation order; catalogs before the activity that refers to them. */
const SOURCES: Record<GeneratedKind, (world: World) => KindSource> = {
  profiles: profileSource,
  'social-follows': socialFollowSource,
  follows: appFollowSource,
  transactions: transactionSource,
  'token-transfers': tokenTransferSource,
  'address-labels': addressLabelSource,
  'nft-collections': nftCollectionSource,
  'nft-transfers': nftTransferSource,
  'sbt-issuers': sbtIssuerSource,
  'sbt-mints': sbtMintSource,
};

export const generatedKinds = Object.keys(SOURCES) as GeneratedKind[];

/** Keeps every derived index within 32 bits (addresses use profile * 4 + slot). */
export const MAX_PROFILES = 100_000_000;

export function isGeneratedKind(name: string): name is GeneratedKind {
  return Object.hasOwn(SOURCES, name);
}

export async function generateWorld(o: GenerateOptions): Promise<WorldManifest> {
  const selected = selectedKinds(o);
  const world = createWorld(o.seed, o.profiles, o.chainId ?? 1, o.appFollowScale ?? 1);
  await mkdir(o.outDir, { recursive: true });
  const files: WorldManifest['files'] = {};
  let plan: DemoPlan | undefined;
  const demo = () => (plan ??= demoPlan(world));
  for (const kind of selected) {
    const file = `${kind}.jsonl`;
    const source = o.demoUsers ? withDemoRecords(SOURCES[kind](world), () => demoRecords(world, demo(), kind)) : SOURCES[kind](world);
    const rows = await writeKind(source, join(o.outDir, file), o.onProgress);
    files[kind] = { file, rows };
  }
  const manifest: WorldManifest = { seed: o.seed, profiles: o.profiles, ...(o.demoUsers ? { demoUsers: demo().users.map((u) => u.profileId) } : {}), files };
  await writeFile(join(o.outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The requested kinds in generation order, after checking the options. */
function selectedKinds(o: GenerateOptions): GeneratedKind[] {
  if (!Number.isInteger(o.profiles) || o.profiles < 1 || o.profiles > MAX_PROFILES) {
    throw new RangeError(`profiles must be a whole number from 1 to ${MAX_PROFILES}, got ${o.profiles}`);
  }
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) {
    throw new RangeError(`seed must be a non-negative safe integer, got ${o.seed}`);
  }
  if (o.chainId !== undefined && (!Number.isInteger(o.chainId) || o.chainId < 1 || o.chainId > 4_294_967_295)) {
    throw new RangeError(`chainId must be a whole number from 1 to 4294967295, got ${o.chainId}`);
  }
  if (o.appFollowScale !== undefined && !(o.appFollowScale > 0 && o.appFollowScale <= 100)) {
    throw new RangeError(`appFollowScale must be above 0 and at most 100, got ${o.appFollowScale}`);
  }
  const unknown = (o.kinds ?? []).filter((k) => !isGeneratedKind(k));
  if (unknown.length > 0) throw new RangeError(`cannot generate kind(s): ${unknown.join(', ')}`);
  return generatedKinds.filter((k) => o.kinds === undefined || o.kinds.includes(k));
}

/** Streams one kind's records to `path`; returns the number of rows written. */
async function writeKind(source: KindSource, path: string, onProgress: GenerateOptions['onProgress']): Promise<number> {
  const report = (done: number) => onProgress?.({ phase: source.kind, done, total: source.units });
  const step = Math.max(1, Math.floor(source.units / 200));
  const writer = JsonlWriter.open(path);
  report(0);
  for (let unit = 0; unit < source.units; unit++) {
    for (const record of source.recordsOf(unit)) {
      if (!writer.write(record)) await writer.drained();
    }
    if ((unit + 1) % step === 0 && unit + 1 < source.units) report(unit + 1);
  }
  await writer.close();
  report(source.units);
  return writer.rows;
}
