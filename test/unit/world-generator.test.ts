import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordKinds } from '../../shared/records/kinds.ts';
import { generateWorld, generatedKinds, type WorldManifest } from '../../pipeline/generate/world-generator.ts';

const PROFILES = 300;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const SEED = 7;

type Row = Record<string, unknown>;

let root: string;
let world: string;
let manifest: WorldManifest;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'soulgraph-world-'));
  world = join(root, 'a');
  manifest = await generateWorld({ profiles: PROFILES, seed: SEED, outDir: world });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function linesOf(dir: string, kind: string): Promise<string[]> {
  const text = await readFile(join(dir, `${kind}.jsonl`), 'utf8');
  return text.split('\n').filter((line) => line !== '');
}

async function rowsOf(kind: string, dir = world): Promise<Row[]> {
  return (await linesOf(dir, kind)).map((line) => JSON.parse(line) as Row);
}

function duplicatesOf(values: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wallet address -> index of the profile that owns it. */
async function ownerByAddress(): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  (await rowsOf('profiles')).forEach((p, i) => (p.addresses as string[]).forEach((a) => owners.set(a, i)));
  return owners;
}

/** [follower, followee] pairs of a follow kind. */
async function followPairs(kind: 'social-follows' | 'follows'): Promise<[string, string][]> {
  const [from, to] = kind === 'follows' ? ['followerProfileId', 'followeeProfileId'] : ['follower', 'followee'];
  return (await rowsOf(kind)).map((f) => [f[from!] as string, f[to!] as string]);
}

describe('generateWorld', () => {
  it('writes one file per generated kind and a manifest counting its rows', async () => {
    const files = await readdir(world);
    expect(files.sort()).toEqual([...generatedKinds.map((k) => `${k}.jsonl`), 'manifest.json'].sort());
    const written = JSON.parse(await readFile(join(world, 'manifest.json'), 'utf8')) as WorldManifest;
    expect(written).toEqual(manifest);
    for (const kind of generatedKinds) {
      expect(manifest.files[kind]!.rows).toBe((await linesOf(world, kind)).length);
      expect(manifest.files[kind]!.rows).toBeGreaterThan(0);
    }
  });

  it("writes only records that pass their kind's schema", async () => {
    for (const kind of generatedKinds) {
      const rejected = (await rowsOf(kind))
        .map((row) => ({ row, result: recordKinds[kind].schema.safeParse(row) }))
        .filter(({ result }) => !result.success);
      expect(rejected.slice(0, 3).map(({ row, result }) => ({ kind, row, issues: result.error?.issues }))).toEqual([]);
    }
  });

  it('writes byte-identical files for the same seed and different ones for another seed', async () => {
    const again = join(root, 'again');
    const other = join(root, 'other');
    await generateWorld({ profiles: PROFILES, seed: SEED, outDir: again });
    await generateWorld({ profiles: PROFILES, seed: SEED + 1, outDir: other });
    for (const kind of generatedKinds) {
      const file = `${kind}.jsonl`;
      const original = await readFile(join(world, file));
      expect(original.equals(await readFile(join(again, file))), file).toBe(true);
      if (kind !== 'address-labels') expect(original.equals(await readFile(join(other, file))), file).toBe(false);
    }
  });

  it('writes the same transactions whether or not the other kinds are generated', async () => {
    const only = join(root, 'only-transactions');
    const result = await generateWorld({ profiles: PROFILES, seed: SEED, outDir: only, kinds: ['transactions'] });
    expect(Object.keys(result.files)).toEqual(['transactions']);
    expect((await readdir(only)).sort()).toEqual(['manifest.json', 'transactions.jsonl']);
    const file = 'transactions.jsonl';
    expect((await readFile(join(only, file))).equals(await readFile(join(world, file)))).toBe(true);
  });

  it('rejects kinds it cannot generate', async () => {
    await expect(generateWorld({ profiles: 10, seed: 1, outDir: join(root, 'bad'), kinds: ['invites'] })).rejects.toThrow(
      /invites/,
    );
  });
});

describe('profiles', () => {
  it('gives every profile a distinct id and every wallet address to exactly one profile', async () => {
    const profiles = await rowsOf('profiles');
    expect(profiles).toHaveLength(PROFILES);
    expect(duplicatesOf(profiles.map((p) => p.profileId))).toEqual([]);
    expect(duplicatesOf(profiles.flatMap((p) => p.addresses as string[]))).toEqual([]);
    expect(profiles.every((p) => (p.addresses as string[]).length >= 1 && (p.addresses as string[]).length <= 3)).toBe(true);
  });

  it('gives every handle to exactly one profile, and most profiles have one', async () => {
    const handles = (await rowsOf('profiles')).map((p) => p.socialUsername).filter((h) => h !== undefined);
    expect(duplicatesOf(handles)).toEqual([]);
    expect(handles.length).toBeGreaterThan(PROFILES * 0.7);
  });

  it('gives every game-platform id to exactly one profile, and some profiles have one', async () => {
    const ids = (await rowsOf('profiles')).map((p) => p.gamePlatformId).filter((id) => id !== undefined);
    expect(duplicatesOf(ids)).toEqual([]);
    expect(ids.length).toBeGreaterThan(PROFILES * 0.1);
  });
});

describe.each(['social-follows', 'follows'] as const)('%s', (kind) => {
  it('never lets anyone follow themselves, and lists each follow once', async () => {
    const pairs = await followPairs(kind);
    expect(pairs.filter(([a, b]) => a === b)).toEqual([]);
    expect(duplicatesOf(pairs.map(([a, b]) => `${a}>${b}`))).toEqual([]);
  });

  it('only follows existing profiles', async () => {
    const profiles = await rowsOf('profiles');
    const known = new Set(profiles.map((p) => (kind === 'follows' ? p.profileId : p.socialUsername)));
    expect((await followPairs(kind)).flat().filter((id) => !known.has(id))).toEqual([]);
  });

  it('concentrates followers on a few popular accounts', async () => {
    const followers = new Map<string, number>();
    for (const [, followee] of await followPairs(kind)) followers.set(followee, (followers.get(followee) ?? 0) + 1);
    const inDegrees = [...followers.values()];
    expect(Math.max(...inDegrees)).toBeGreaterThanOrEqual(4 * median(inDegrees));
  });

  it('has between 20% and 50% of follows returned', async () => {
    const pairs = await followPairs(kind);
    const edges = new Set(pairs.map(([a, b]) => `${a}>${b}`));
    const returned = pairs.filter(([a, b]) => edges.has(`${b}>${a}`)).length / pairs.length;
    expect(returned).toBeGreaterThan(0.2);
    expect(returned).toBeLessThan(0.5);
  });

  it('has a few unfollows, each after its follow', async () => {
    const unfollows = (await rowsOf(kind)).filter((f) => f.unfollowedAt !== undefined);
    expect(unfollows.length).toBeGreaterThan(0);
    const early = unfollows.filter((f) => Date.parse(f.unfollowedAt as string) <= Date.parse(f.followedAt as string));
    expect(early).toEqual([]);
  });
});

describe('on-chain activity', () => {
  it('never repeats a transaction hash', async () => {
    const transactions = await rowsOf('transactions');
    expect(duplicatesOf(transactions.map((t) => t.hash))).toEqual([]);
    const tokenTransfers = await rowsOf('token-transfers');
    expect(duplicatesOf(tokenTransfers.map((t) => `${t.txHash}/${t.logIndex}`))).toEqual([]);
    const nftTransfers = await rowsOf('nft-transfers');
    expect(duplicatesOf(nftTransfers.map((t) => `${t.txHash}/${t.logIndex}/${t.tokenId}`))).toEqual([]);
  });

  it('averages about 10 transactions and 2 token transfers per profile, within 2023-2024', async () => {
    const transactions = await rowsOf('transactions');
    expect(transactions.length / PROFILES).toBeGreaterThan(7);
    expect(transactions.length / PROFILES).toBeLessThan(14);
    expect((await rowsOf('token-transfers')).length / PROFILES).toBeGreaterThan(1.5);
    const times = transactions.map((t) => t.blockTime as number);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(Date.parse('2023-01-01T00:00:00Z') / 1000);
    expect(Math.max(...times)).toBeLessThan(Date.parse('2025-01-01T00:00:00Z') / 1000);
  });

  it('numbers blocks in time order', async () => {
    const byTime = (await rowsOf('transactions')).sort((a, b) => (a.blockTime as number) - (b.blockTime as number));
    const blocks = byTime.map((t) => t.blockNumber as number);
    expect(blocks.every((block, i) => i === 0 || block >= blocks[i - 1]!)).toBe(true);
  });

  it('labels exchange hubs that transact with a large share of profiles', async () => {
    const owners = await ownerByAddress();
    const exchanges = (await rowsOf('address-labels')).filter((l) => l.kind === 'exchange').map((l) => l.address as string);
    expect(exchanges.length).toBeGreaterThanOrEqual(3);
    const customers = new Map(exchanges.map((e) => [e, new Set<number>()]));
    for (const t of await rowsOf('transactions')) {
      customers.get(t.from as string)?.add(owners.get(t.to as string)!);
      customers.get(t.to as string)?.add(owners.get(t.from as string)!);
    }
    const shares = [...customers.values()].map((profiles) => profiles.size / PROFILES);
    expect(Math.max(...shares)).toBeGreaterThan(0.25);
    expect(Math.min(...shares)).toBeGreaterThan(0.03);
  });

  it('includes self-transfers, dust and calls to labeled contracts', async () => {
    const owners = await ownerByAddress();
    const contracts = new Set(
      (await rowsOf('address-labels')).filter((l) => l.kind === 'contract').map((l) => l.address as string),
    );
    const transactions = await rowsOf('transactions');
    const selfTransfers = transactions.filter((t) => t.from !== t.to && owners.get(t.from as string) === owners.get(t.to as string));
    const dust = transactions.filter((t) => BigInt(t.value as string) > 0n && BigInt(t.value as string) < 10_000n);
    const calls = transactions.filter((t) => contracts.has(t.to as string));
    for (const found of [selfTransfers, dust, calls]) expect(found.length).toBeGreaterThan(PROFILES * 0.1);
  });
});

describe('NFTs', () => {
  it('moves each NFT only from an address holding it at that moment', async () => {
    const transfers = (await rowsOf('nft-transfers')).sort((a, b) => (a.blockNumber as number) - (b.blockNumber as number));
    const balances = new Map<string, bigint>();
    const key = (t: Row, holder: unknown) => `${t.contract}/${t.tokenId}/${holder}`;
    const overdrawn: Row[] = [];
    for (const t of transfers) {
      const amount = BigInt(t.amount as string);
      if (t.from !== ZERO_ADDRESS) {
        const held = balances.get(key(t, t.from)) ?? 0n;
        if (held < amount) overdrawn.push(t);
        balances.set(key(t, t.from), held - amount);
      }
      balances.set(key(t, t.to), (balances.get(key(t, t.to)) ?? 0n) + amount);
    }
    expect(overdrawn).toEqual([]);
    expect(transfers.filter((t) => t.from !== ZERO_ADDRESS).length).toBeGreaterThan(0);
  });

  it('mints ERC-1155 editions in amounts above one', async () => {
    const transfers = await rowsOf('nft-transfers');
    expect(transfers.some((t) => t.standard === 'ERC-1155' && t.amount !== '1')).toBe(true);
    expect(transfers.some((t) => t.standard === 'ERC-721')).toBe(true);
  });

  it('makes a few collections far more popular than the long tail', async () => {
    // 300 profiles only get 6 collections; the tail needs a bigger catalog to show.
    const dir = join(root, 'nft-catalog');
    await generateWorld({ profiles: 5_000, seed: SEED, outDir: dir, kinds: ['nft-collections', 'nft-transfers'] });
    const collections = await rowsOf('nft-collections', dir);
    expect(collections).toHaveLength(100);
    const mints = new Map(collections.map((c) => [c.contract, 0]));
    for (const t of await rowsOf('nft-transfers', dir)) {
      if (t.from === ZERO_ADDRESS) mints.set(t.contract, mints.get(t.contract)! + 1);
    }
    expect(Math.max(...mints.values())).toBeGreaterThanOrEqual(10 * median([...mints.values()]));
  });
});

describe('SBTs', () => {
  it('mints about 2 SBTs per profile, only from listed issuers and only to profile wallets', async () => {
    const owners = await ownerByAddress();
    const issuers = new Set((await rowsOf('sbt-issuers')).map((i) => i.contract));
    const mints = await rowsOf('sbt-mints');
    expect(mints.length / PROFILES).toBeGreaterThan(1.5);
    expect(mints.length / PROFILES).toBeLessThan(2.5);
    expect(mints.filter((m) => !issuers.has(m.contract))).toEqual([]);
    expect(mints.filter((m) => !owners.has(m.owner as string))).toEqual([]);
    expect(duplicatesOf(mints.map((m) => `${m.contract}/${m.tokenId}`))).toEqual([]);
  });

  it('tags each issuer with 1 to 3 categories', async () => {
    const issuers = await rowsOf('sbt-issuers');
    expect(issuers.length).toBe(20 + Math.floor(PROFILES / 500));
    expect(issuers.every((i) => (i.categories as string[]).length >= 1 && (i.categories as string[]).length <= 3)).toBe(true);
  });
});
