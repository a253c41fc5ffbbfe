/**
 * The demo users of the demo world (pipeline/generate/demo-users.ts): each world profile
 * they are related to is related by one signal only, so that each recommendation's reason
 * is the same whatever the scorer's weights and ranking.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWalletsSummary } from '../../pipeline/cli/demo.command.ts';
import { demoUsersAllowed } from '../../pipeline/demo-world.ts';
import { demoPlan, demoUsers } from '../../pipeline/generate/demo-users.ts';
import { parseConfig } from '../../shared/config.ts';
import { profileIdOf } from '../../pipeline/generate/identities.ts';
import { addressOf } from '../../pipeline/generate/wallets.ts';
import { generateWorld } from '../../pipeline/generate/world-generator.ts';
import { createWorld } from '../../pipeline/generate/world.ts';

const PROFILES = 400;
const SEED = 7;
let dir: string;
const lines = async (kind: string) =>
  (await readFile(path.join(dir, `${kind}.jsonl`), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-demo-users-'));
  await generateWorld({ profiles: PROFILES, seed: SEED, outDir: dir, demoUsers: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the demo users', () => {
  const world = createWorld(SEED, PROFILES, 1);
  const plan = demoPlan(world);
  const users = demoUsers();

  it('are the ones docs/api.md lists', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| (\w+ Demo) \| `([^`]+)` \| `([^`]+)` \| `([^`]+)` \| `([^`]+)` \|$/gm)].map((m) => m.slice(1));
    expect(rows).toEqual(users.map((u) => [u.name, u.profileId, u.socialUsername, u.gamePlatformId, u.address]));
  });

  it('are the same in every run, with a distinct wallet each', () => {
    expect(demoUsers()).toEqual(users);
    expect(new Set(users.map((u) => u.address.toLowerCase())).size).toBe(users.length);
  });

  it('relate to each world profile at most once, and never to one their friends follow', async () => {
    const targets = [plan.socialFollows, plan.counterparties, plan.coHolders].flat(2);
    expect(new Set(targets).size).toBe(targets.length);
    const friendIds = new Set(plan.friends.flat().map((p) => profileIdOf(world, p)));
    const followedByFriends = new Set(
      (await lines('follows')).filter((f) => friendIds.has(f.followerProfileId as string)).map((f) => f.followeeProfileId as string),
    );
    expect(followedByFriends.size).toBeGreaterThan(0);
    for (const p of targets) expect(followedByFriends.has(profileIdOf(world, p)), String(p)).toBe(false);
    expect(plan.friends[0]).toEqual([]);
  });

  it("are written into the world's files: profiles, follows, payments, NFTs and SBTs to their wallets", async () => {
    const own = new Set(users.map((u) => u.address.toLowerCase()));
    expect((await lines('profiles')).filter((p) => (p.profileId as string).startsWith('p_demo_')).map((p) => p.profileId)).toEqual(users.map((u) => u.profileId));
    expect((await lines('follows')).filter((f) => f.followerProfileId === users[0]!.profileId).map((f) => f.followeeProfileId)).toEqual([users[1]!.profileId]);
    const adaPayments = (await lines('transactions')).filter((t) => t.from === [...own][0] || t.to === [...own][0]);
    expect(new Set(adaPayments.flatMap((t) => [t.from, t.to]))).toEqual(new Set([[...own][0], ...plan.counterparties[0]!.map((p) => addressOf(world, p, 0))]));
    expect((await lines('nft-transfers')).filter((t) => own.has(t.to as string))).toHaveLength(users.length);
    expect((await lines('sbt-mints')).filter((m) => own.has(m.owner as string))).toHaveLength(3 * users.length);
  });

  it('are left out unless asked for', async () => {
    const plain = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-no-demo-users-'));
    try {
      const manifest = await generateWorld({ profiles: 50, seed: SEED, outDir: plain, kinds: ['profiles'] });
      expect(manifest.demoUsers).toBeUndefined();
      expect(await readFile(path.join(plain, 'profiles.jsonl'), 'utf8')).not.toContain('p_demo_');
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});

describe('the demo wallets in production', () => {
  const production = parseConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(40) });
  const development = parseConfig({ NODE_ENV: 'development' });

  it('are printed by npm start outside production only, labelled demo-only', () => {
    expect(demoWalletsSummary(production)).toBe('');
    const summary = demoWalletsSummary(development);
    expect(summary).toContain('DEMO ONLY');
    for (const user of demoUsers()) expect(summary).toContain(user.privateKey);
  });

  it('are not put into a production demo world at all', () => {
    expect(demoUsersAllowed(production)).toBe(false);
    expect(demoUsersAllowed(development)).toBe(true);
  });
});
