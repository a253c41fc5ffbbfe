/**
 * The local custody network's key files, as `soulgraph custodian keygen` writes them:
 *
 *   <dir>/network.json        public: the network key, threshold, each node's public key share
 *   <dir>/custodian-<i>.json  secret (mode 0600): node i's share, one file per custodian
 *
 * The master scalar exists only inside `generateCustodyKeys`, for the time it takes to
 * split it; it is never written. Give each custodian its own file and nothing else.
 */
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bytesToHex } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { publicKeyOf, randomScalar, scalarFromHex, scalarToHex, splitSecret, type KeyShare } from '../tag-crypto/threshold-signatures.ts';

const hex96 = z.string().regex(/^[0-9a-f]{96}$/, 'must be 96 lowercase hex characters');

export const networkFileSchema = z.object({
  version: z.literal(1),
  publicKey: hex96,
  threshold: z.number().int().min(2),
  nodes: z.number().int().min(2),
  createdAt: z.string(),
  custodians: z.array(z.object({ index: z.number().int().min(1).max(255), publicKeyShare: hex96 })),
});
export type NetworkFile = z.infer<typeof networkFileSchema>;

export const shareFileSchema = z.object({
  version: z.literal(1),
  index: z.number().int().min(1).max(255),
  threshold: z.number().int().min(2),
  nodes: z.number().int().min(2),
  publicKey: hex96,
  publicKeyShare: hex96,
  share: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ShareFile = z.infer<typeof shareFileSchema>;

export const NETWORK_FILE = 'network.json';

/** Keys are never overwritten: a folder holds one network's keys for its whole life. */
export class CustodyKeysExist extends Error {
  override name = 'CustodyKeysExist';
}
export const shareFileName = (index: number) => `custodian-${index}.json`;

/** Splits a fresh master key into `nodes` shares and writes the files; refuses a folder that already holds keys. */
export async function generateCustodyKeys(dir: string, nodes: number, threshold: number, now = new Date()): Promise<NetworkFile> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = (await readdir(dir)).filter((f) => f === NETWORK_FILE || /^custodian-\d+\.json$/.test(f));
  if (existing.length > 0) throw new CustodyKeysExist(`${dir} already holds custody keys (${existing.join(', ')}): use a new folder to rotate`);
  const { publicKey, shares } = splitFreshMaster(nodes, threshold);
  const network: NetworkFile = {
    version: 1,
    publicKey,
    threshold,
    nodes,
    createdAt: now.toISOString(),
    custodians: shares.map((s) => ({ index: s.index, publicKeyShare: pointHex(s.scalar) })),
  };
  for (const share of shares) {
    const file: ShareFile = {
      version: 1,
      index: share.index,
      threshold,
      nodes,
      publicKey,
      publicKeyShare: pointHex(share.scalar),
      share: scalarToHex(share.scalar),
    };
    const target = path.join(dir, shareFileName(share.index));
    await writeFile(target, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(target, 0o600);
  }
  await writeFile(path.join(dir, NETWORK_FILE), `${JSON.stringify(network, null, 2)}\n`, { flag: 'wx' });
  return network;
}

/** The master lives only in this frame: split, public key taken, then dropped. */
function splitFreshMaster(nodes: number, threshold: number): { publicKey: string; shares: KeyShare[] } {
  const master = randomScalar();
  return { publicKey: pointHex(master), shares: splitSecret(master, nodes, threshold) };
}

function pointHex(scalar: bigint): string {
  return bytesToHex(publicKeyOf(scalar).toBytes(true));
}

export async function readNetworkFile(dir: string): Promise<NetworkFile> {
  return parseFile(path.join(dir, NETWORK_FILE), networkFileSchema);
}

/** A custodian's share, checked: its public key share must match its scalar. */
export async function readShareFile(file: string): Promise<ShareFile & { key: KeyShare }> {
  const parsed = await parseFile(file, shareFileSchema);
  const scalar = scalarFromHex(parsed.share);
  if (pointHex(scalar) !== parsed.publicKeyShare) throw new Error(`${file}: the share does not match its publicKeyShare`);
  return { ...parsed, key: { index: parsed.index, scalar } };
}

async function parseFile<T extends z.ZodType>(file: string, schema: T): Promise<z.output<T>> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const result = schema.safeParse(json);
  if (!result.success) throw new Error(`${file} is not a custody key file: ${result.error.issues[0]!.message}`);
  return result.data;
}
