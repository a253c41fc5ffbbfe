/**
 * The world `npm start` loads (its 2,000 profiles and the demo users, behind a real API and
 * real custodians), loaded once for this file:
 * - the demo users: whoever signs in as one sees every form of recommendation reason, for
 *   the people the demo data relates them to, whatever the ranking; SBTs; decryptable tags;
 * - the docs run: every shell and TypeScript example of docs/api.md, docs/sdk.md and
 *   README.md runs here, in order, and what each prints is compared with the output the
 *   document shows (ids, codes, shapes; test/support/doc-runner.ts says what may differ).
 *   The only changes to the text: the API's and the custodians' addresses, the custodians'
 *   key folder and README's walk file are this test's.
 */
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWalk } from '../../pipeline/cli/demo.command.ts';
import { UsageError } from '../../pipeline/cli/usage-error.ts';
import { demoUsers, type DemoUser } from '../../pipeline/generate/demo-users.ts';
import { profileIdOf } from '../../pipeline/generate/identities.ts';
import { sbtIssuers } from '../../pipeline/generate/sbts.ts';
import { createWorld } from '../../pipeline/generate/world.ts';
import { chainName, parseConfig } from '../../shared/config.ts';
import { custodianDecryptor, SoulgraphClient } from '../../sdk/index.ts';
import { useDemoWorld } from '../support/demo-world.ts';
import { REPO, ShellSession, docBlocks, examples, isShell, outputDifferences, runTypeScript, type Example } from '../support/doc-runner.ts';

const world = useDemoWorld();

/** README's walk file, one per run: other checkouts may run this test at the same time. */
const WALK_FILE = path.join(os.tmpdir(), `soulgraph-walk-${process.pid}.sh`);
afterAll(() => rmSync(WALK_FILE, { force: true }));

/** The document as this test's stack sees it: its API, custodians and files in place of the defaults. */
function localized(text: string): string {
  return text
    .replaceAll('/tmp/walk.sh', WALK_FILE)
    .replaceAll('http://127.0.0.1:8080', world.url)
    .replace(/http:\/\/127\.0\.0\.1:710(\d)/g, (_, n: string) => world.custodians.urls[Number(n) - 1]!)
    .replaceAll('.data/custodians', world.custodians.keyDir);
}

function shellEnv(): Record<string, string> {
  return {
    ...world.env,
    LOG_LEVEL: 'warn',
    DATA_DIR: world.config.DATA_DIR,
    API_PORT: new URL(world.url).port,
    CUSTODIAN_PORT: String(world.custodians.basePort),
    CUSTODIAN_KEY_DIR: world.custodians.keyDir,
  };
}

function describeDoc(doc: string, tsEnv: (session: ShellSession) => Promise<Record<string, string>> = async () => ({})) {
  const all = examples(docBlocks(readFileSync(path.join(REPO, doc), 'utf8')));
  const shell = all.filter((e) => isShell(e.block));
  const typescript = all.filter((e) => e.block.lang === 'ts');

  describe(doc, () => {
    let session: ShellSession;
    beforeAll(() => {
      session = new ShellSession(shellEnv());
    });
    afterAll(() => session?.close());

    for (const example of shell) {
      it(`runs the shell example at line ${example.block.line} and prints what the doc shows`, async () => {
        const printed = await session.run(localized(example.block.body));
        expect(outputDifferences(example.outputs, printed), printed.stderr).toEqual([]);
        expect(printed.code, printed.stderr).toBe(0);
      });
    }

    if (typescript.length > 0) {
      it(`runs the TypeScript examples (lines ${typescript.map((e) => e.block.line).join(', ')}) and prints what the doc shows`, async () => {
        const run = await runTypeScript(typescript.map((e) => localized(e.block.body)), { ...(await tsEnv(session)) });
        expect(run.code, run.stderr).toBe(0);
        const differences = typescript.flatMap((e: Example, i) => outputDifferences(e.outputs, { stdout: run.outputs[i] ?? '', stderr: '' }));
        expect(differences, run.stderr).toEqual([]);
      });
    }
  });
}

/** The ApiKey and wallet the shell examples made, for the TypeScript ones that read them from the environment. */
const apiKeyOf = async (session: ShellSession) => ({
  SOULGRAPH_API_KEY: (await session.variable('SOULGRAPH_API_KEY')) || (await session.variable('KEY')),
  PRIVATE_KEY: await session.variable('PRIVATE_KEY'),
});

describeDoc('docs/api.md', apiKeyOf);
describeDoc('docs/sdk.md', apiKeyOf);
describeDoc('README.md');

describe('the demo users', () => {
  const [ada, grace, alan] = demoUsers() as [DemoUser, DemoUser, DemoUser];
  let apiKey: string;
  beforeAll(async () => {
    apiKey = (await world.createApiKey(['--name', 'demo-test', '--domain', 'app.acme.xyz'])).key;
  });

  async function recommendationsOf(user: DemoUser): Promise<Map<string, string>> {
    const client = new SoulgraphClient({ baseUrl: world.url, apiKey });
    await client.signIn(privateKeyToAccount(user.privateKey as `0x${string}`), { domain: 'app.acme.xyz', uri: 'https://app.acme.xyz', chainId: 1 });
    const reasons = new Map<string, string>();
    for await (const page of client.recommendations({ limit: 5 })) for (const r of page) reasons.set(r.profileId, r.recommendReason);
    return reasons;
  }

  /** What each world profile the demo data relates `user` to is recommended for (pipeline/generate/demo-users.ts). */
  function expectedReasons(i: number, user: DemoUser): Map<string, string> {
    const { plan, config } = world;
    const w = createWorld(config.DEMO_SEED, config.DEMO_PROFILES, 1);
    const id = (p: number) => profileIdOf(w, p);
    return new Map([
      ...plan.socialFollows[i]!.map((p) => [id(p), `Following on ${config.SOCIAL_NETWORK_NAME}`] as const),
      ...plan.counterparties[i]!.map((p) => [id(p), `Counterparty on ${chainName(config, 1)}`] as const),
      ...plan.coHolders[i]!.map((p) => [id(p), `Holder of ${user.collection}`] as const),
    ]);
  }

  it('recommends Ada everyone her demo data relates her to, each for a reason that data gives (all seven forms), and no one else but her wider network and the most followed', async () => {
    const w = createWorld(world.config.DEMO_SEED, world.config.DEMO_PROFILES, 1);
    // Someone related to her in more than one way may be named for any of them: the fitted
    // weights decide which part of the score is largest.
    const allowed = new Map<string, Set<string>>();
    const allow = (id: string, reason: string) => allowed.set(id, (allowed.get(id) ?? new Set()).add(reason));
    for (const [id, reason] of expectedReasons(0, ada)) allow(id, reason);
    // She follows Grace only, so her friends of friends are whom Grace follows (Alan among
    // them); and Alan follows her, so he is named for that, and whom he follows after him.
    allow(alan.profileId, 'Follows you');
    for (const id of [alan.profileId, ...world.plan.friends[1]!.map((p) => profileIdOf(w, p))]) allow(id, `Followed by ${grace.name}`);
    for (const p of world.plan.friends[2]!) allow(profileIdOf(w, p), `Followed by ${alan.name}`);
    const got = await recommendationsOf(ada);
    for (const [id, reasons] of allowed) expect([...reasons], id).toContain(got.get(id));
    // The rest of her REC_TOP_K places: walks of more steps, then the most followed; never
    // her, nor Grace, whom she follows (the map would have fewer entries if one came twice).
    expect(got.size).toBe(world.config.REC_TOP_K);
    const rest = [...got].filter(([id]) => !allowed.has(id));
    for (const [id, reason] of rest) {
      expect(['In your network', 'Popular'], id).toContain(reason);
      expect([ada.profileId, grace.profileId], id).not.toContain(id);
    }
    expect(new Set([...got.values()])).toEqual(
      new Set([
        'Follows you',
        `Followed by ${grace.name}`,
        `Followed by ${alan.name}`,
        `Following on ${world.config.SOCIAL_NETWORK_NAME}`,
        `Counterparty on ${chainName(world.config, 1)}`,
        `Holder of ${ada.collection}`,
        'In your network',
        'Popular',
      ]),
    );
  });

  it.each([
    [1, grace],
    [2, alan],
  ] as const)('recommends %s, demo user, every form of reason too', async (i, user) => {
    const got = await recommendationsOf(user);
    for (const [id, reason] of expectedReasons(i, user)) expect(got.get(id), id).toBe(reason);
    expect([...got.values()].some((r) => r.startsWith('Followed by '))).toBe(true);
  });

  it('lists the same SBTs by each identifier of a demo user, and tags that decrypt to their issuers\' categories', async () => {
    const by = async (query: string) => (await world.call(`/api/v1/sbt/list?${query}`, { apiKey })).body;
    const byAddress = await by(`address=${ada.address}`);
    expect(byAddress.code).toBe('0');
    expect(byAddress.data.length).toBe(3);
    expect(await by(`socialUsername=${ada.socialUsername}`)).toEqual(byAddress);
    expect(await by(`gamePlatformId=${encodeURIComponent(ada.gamePlatformId)}`)).toEqual(byAddress);

    const contracts = new Set(byAddress.data.map((s: { contractAddress: string }) => s.contractAddress));
    const categories = sbtIssuers(createWorld(world.config.DEMO_SEED, world.config.DEMO_PROFILES, 1))
      .filter((issuer) => contracts.has(issuer.address))
      .flatMap((issuer) => issuer.categories);
    const client = new SoulgraphClient({ baseUrl: world.url, apiKey });
    const account = privateKeyToAccount(ada.privateKey as `0x${string}`);
    const authorization = await client.authorizeTagAccess(account, { domain: 'app.acme.xyz', uri: 'https://app.acme.xyz', chainId: 1 });
    const decryptor = custodianDecryptor({ custodians: world.custodians.urls, threshold: world.custodians.threshold, publicKey: world.custodians.publicKey });
    expect(await client.tags({ address: account.address }, authorization, decryptor)).toEqual([...new Set(categories)].sort());
  });

  it('has public wallets that are what the keys derive', () => {
    for (const user of demoUsers()) expect(privateKeyToAccount(user.privateKey as `0x${string}`).address).toBe(user.address);
  });

  it('refuses the walk in production, where the demo world has no demo users', async () => {
    const production = parseConfig({ ...world.env, NODE_ENV: 'production', API_SIGNING_KEYS: '[]', CURSOR_SECRET: 'x'.repeat(40) });
    await expect(demoWalk(production, 'ada')).rejects.toThrow(UsageError);
    await expect(demoWalk(world.config, 'nobody')).rejects.toThrow(/no demo user "nobody"/);
  });
});
