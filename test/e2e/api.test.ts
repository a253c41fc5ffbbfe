/**
 * The API end to end, over real HTTP, against the real ClickHouse, Redis and pipeline
 * workers: a wallet signs in, exchanges tokens and pages through its recommendations;
 * then every way a request can be wrong.
 */
import express, { type Express } from 'express';
import { SignJWT, importJWK, base64url } from 'jose';
import { createSiweMessage } from 'viem/siwe';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { profileIdForAddress } from '../../api/auth/auth.ts';
import { dropExpiredSnapshots } from '../../pipeline/materialize/publish/snapshots.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { useApi } from '../support/api-harness.ts';
import { waitFor } from '../support/child-process.ts';
import { runCliInProcess } from '../support/cli-in-process.ts';
import { ingestFiles, writeJsonLines } from '../support/pipeline-harness.ts';

const api = useApi();
const DOMAIN = 'app.acme.xyz';
let apiKey: string;

let wallet: PrivateKeyAccount;
let unifiedToken: string;
let me: string;

async function signIn(account: PrivateKeyAccount, options: { domain?: string; key?: string } = {}) {
  const key = options.key ?? apiKey;
  const { body: nonceBody } = await api.call('/api/v1/auth/nonce', { apiKey: key });
  const message = createSiweMessage({
    domain: options.domain ?? DOMAIN,
    address: account.address,
    uri: `https://${options.domain ?? DOMAIN}/login`,
    version: '1',
    chainId: 1,
    nonce: nonceBody.data.nonce,
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + 5 * 60_000),
  });
  const signature = await account.signMessage({ message });
  return { message, signature };
}

async function addressToken(account: PrivateKeyAccount): Promise<string> {
  const { body } = await api.call('/api/v1/auth/address-token', {
    apiKey,
    method: 'POST',
    body: JSON.stringify(await signIn(account)),
  });
  expect(body.code).toBe('0');
  return body.data.token;
}

const get = (path: string, token = unifiedToken) => api.call(path, { apiKey, headers: { Authorization: `Bearer ${token}` } });

/** All recommendations, page by page; fails on a repeated profile. */
async function pageThrough(limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '';
  for (let page = 0; page < 1_000; page++) {
    const { status, body } = await get(`/api/v1/recommend?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(status).toBe(200);
    expect(body.data.list.length).toBeLessThanOrEqual(limit);
    seen.push(...body.data.list.map((u: { profileId: string }) => u.profileId));
    cursor = body.data.cursor;
    if (cursor === '') return seen;
  }
  throw new Error('paging never ended');
}

const CANDIDATES = 150;
const candidate = (i: number) => `p_cand_${String(i).padStart(3, '0')}`;

async function insertSnapshot(snapshotId: number, order: (i: number) => number): Promise<void> {
  const rows = Array.from({ length: CANDIDATES }, (_, i) => ({
    snapshot_id: snapshotId,
    profile_id: me,
    rank: order(i) + 1,
    candidate_id: candidate(i),
    score: 1000 - order(i),
    reason_kind: (['social', 'counterparty', 'nft', 'friend_of_friend'] as const)[i % 4],
    reason_chain_id: i % 4 === 1 ? 137 : i % 4 === 2 ? 1 : 0,
    reason_subject: i % 4 === 2 ? 'CryptoPunks' : i % 4 === 3 ? candidate(0) : '',
  }));
  // The materialization job writes these; until it exists the test stands in for it.
  await api.ch.insert('recommendations', rows);
  const now = Math.floor(Date.now() / 1000);
  await api.ch.insert('recommendation_snapshots', [{ snapshot_id: snapshotId, status: 'ready', created_at: now, updated_at: now }]);
}

beforeAll(async () => {
  ({ key: apiKey } = await api.createApiKey());
  wallet = privateKeyToAccount(generatePrivateKey());
  me = profileIdForAddress(wallet.address.toLowerCase());
  await ingestFiles(api, 'profiles', [
    await writeJsonLines(
      'candidates.jsonl',
      Array.from({ length: CANDIDATES }, (_, i) => ({ profileId: candidate(i), name: `Candidate ${i}`, avatar: `https://example.com/${i}.png` })),
    ),
  ]);
});

describe('signing in and paging through recommendations', () => {
  it('issues an address token for a signed SIWE message and a unified token for it, registering the wallet', async () => {
    const { status, body } = await api.call('/api/v1/auth', {
      apiKey,
      method: 'POST',
      headers: { 'I-Authorization': `Bearer ${await addressToken(wallet)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ inviteCode: candidate(5) }),
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ code: '0', desc: 'success', data: { expiresIn: 604800 } });
    unifiedToken = body.data.token;

    // The registration went through the pipeline: the profile and the invite arrive.
    await waitFor(async () => {
      const rows = await api.ch.query(
        sql`SELECT profile_id FROM profile_identities FINAL WHERE kind = 'address' AND identifier = ${wallet.address.toLowerCase()} AND linked = 1`,
        z.object({ profile_id: z.string() }),
      );
      return rows[0]?.profile_id === me;
    }, 15_000, 'the new profile');
    await waitFor(async () => {
      const rows = await api.ch.query(sql`SELECT inviter_profile_id FROM invites FINAL WHERE invitee_profile_id = ${me}`, z.object({ inviter_profile_id: z.string() }));
      return rows[0]?.inviter_profile_id === candidate(5);
    }, 15_000, 'the invite');
  });

  it('answers an empty last page before any snapshot is ready', async () => {
    const { body } = await get('/api/v1/recommend');
    expect(body).toEqual({ code: '0', desc: 'success', data: { cursor: '', list: [] } });
  });

  it('returns every recommendation exactly once with limits 1, 7 and 100, ending with cursor ""', async () => {
    await insertSnapshot(1, (i) => i);
    const expected = Array.from({ length: CANDIDATES }, (_, i) => candidate(i));
    for (const limit of [1, 7, 100]) expect(await pageThrough(limit)).toEqual(expected);
  });

  it('gives the four reason forms and computes following from the live follow graph', async () => {
    await ingestFiles(api, 'follows', [
      await writeJsonLines('my-follows.jsonl', [{ followerProfileId: me, followeeProfileId: candidate(1), followedAt: '2024-01-01T00:00:00Z' }]),
    ]);
    const { body } = await get('/api/v1/recommend?limit=4');
    expect(body.data.list).toEqual([
      { profileId: candidate(0), name: 'Candidate 0', avatar: 'https://example.com/0.png', recommendReason: 'Following on Twitter', following: false },
      { profileId: candidate(1), name: 'Candidate 1', avatar: 'https://example.com/1.png', recommendReason: 'Counterparty on Polygon', following: true },
      { profileId: candidate(2), name: 'Candidate 2', avatar: 'https://example.com/2.png', recommendReason: 'Holder of CryptoPunks', following: false },
      { profileId: candidate(3), name: 'Candidate 3', avatar: 'https://example.com/3.png', recommendReason: 'Followed by Candidate 0', following: false },
    ]);
  });

  it('answers a page from the serving copy and one from ClickHouse alike: as JSON.stringify spells it, with its exact length', async () => {
    const raw = (limit: number, method = 'GET') =>
      fetch(`${api.url}/api/v1/recommend?limit=${limit}`, { method, headers: { ApiKey: apiKey, Authorization: `Bearer ${unifiedToken}` } });
    // limit 4 is served from Redis; limit 100 reaches past the 100 entries stored there and is read from ClickHouse.
    const [served, deep] = [await raw(4), await raw(100)];
    const texts = [await served.text(), await deep.text()];
    for (const [i, response] of [served, deep].entries()) {
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(texts[i]!)));
      expect(texts[i]).toBe(JSON.stringify(JSON.parse(texts[i]!)));
    }
    const [servedBody, deepBody] = texts.map((text) => JSON.parse(text));
    expect(servedBody).toMatchObject({ code: '0', desc: 'success' });
    expect(deepBody.data.list.slice(0, 4)).toEqual(servedBody.data.list);
    const head = await raw(4, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(served.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('keeps paging in the snapshot it started in when a new one becomes ready', async () => {
    const first = await get('/api/v1/recommend?limit=7');
    await insertSnapshot(2, (i) => CANDIDATES - 1 - i); // the new night reverses the order
    const rest: string[] = first.body.data.list.map((u: { profileId: string }) => u.profileId);
    let cursor = first.body.data.cursor;
    while (cursor) {
      const { body } = await get(`/api/v1/recommend?limit=50&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...body.data.list.map((u: { profileId: string }) => u.profileId));
      cursor = body.data.cursor;
    }
    expect(rest).toEqual(Array.from({ length: CANDIDATES }, (_, i) => candidate(i)));
    // A new first page reads the new snapshot.
    expect((await get('/api/v1/recommend?limit=1')).body.data.list[0].profileId).toBe(candidate(CANDIDATES - 1));
  });

  it('answers 10203 for a cursor whose snapshot retention has dropped', async () => {
    const { body } = await get('/api/v1/recommend?limit=3');
    await insertSnapshot(3, (i) => i);
    await dropExpiredSnapshots(api.ch, { keepReady: 1, minAgeSeconds: 0 });
    const { status, body: after } = await get(`/api/v1/recommend?cursor=${encodeURIComponent(body.data.cursor)}`);
    expect([status, after.code]).toEqual([400, '10203']);
    expect((await get('/api/v1/recommend?limit=1')).body.data.list[0].profileId).toBe(candidate(0));
  });

  it('serves its public keys as a JWKS without private parts', async () => {
    const { status, body } = await api.call('/.well-known/jwks.json');
    expect(status).toBe(200);
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: api.signingJwk.kid });
    expect(body.keys[0].d).toBeUndefined();
  });
});

describe('ApiKey', () => {
  it('answers 10120 without an ApiKey and 10121 for an unknown one', async () => {
    expect((await api.call('/api/v1/sbt/list?address=0x' + '1'.repeat(40))).body.code).toBe('10120');
    const unknown = await api.call('/api/v1/sbt/list?address=0x' + '1'.repeat(40), { apiKey: `sg_${'0'.repeat(12)}_${'A'.repeat(32)}` });
    expect([unknown.status, unknown.body.code]).toEqual([401, '10121']);
  });

  it('stops accepting a revoked key within the cache time', async () => {
    const { key, keyId: id } = await api.createApiKey(['--name', 'doomed', '--domain', DOMAIN]);
    await waitFor(async () => (await api.call('/api/v1/auth/nonce', { apiKey: key })).status === 200, 5_000, 'the new key');
    expect((await runCliInProcess(['apikey', 'revoke', id], api.env)).code).toBe(0);
    await waitFor(async () => (await api.call('/api/v1/auth/nonce', { apiKey: key })).body.code === '10121', 5_000, 'the revocation');
  });

  it('rate-limits per key and endpoint with RateLimit headers and 10110', async () => {
    const { key } = await api.createApiKey(['--name', 'small', '--domain', DOMAIN, '--rate-limit', '2']);
    // A new key is served once the API's key cache refreshes (APIKEY_CACHE_SECONDS, 1 s here).
    await waitFor(async () => (await api.call('/api/v1/sbt/list?socialUsername=nobody_here', { apiKey: key })).status === 404, 5_000, 'the new key');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await api.call('/api/v1/auth/nonce', { apiKey: key }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.body.code).toBe('10110');
    expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(answers[1]!.headers.get('ratelimit-remaining')).toBe('0');
    // Another endpoint of the same key has its own count (one used above while waiting).
    expect((await api.call('/api/v1/sbt/list?socialUsername=nobody_here', { apiKey: key })).status).toBe(404);
  });

  it('counts recommend requests with a bad token too, and refuses past the limit with 10110 whatever the token', async () => {
    const { key } = await api.createApiKey(['--name', 'small-recommend', '--domain', DOMAIN, '--rate-limit', '3']);
    await waitFor(async () => (await api.call('/api/v1/auth/nonce', { apiKey: key })).status === 200, 5_000, 'the new key');
    const recommend = (token: string) => api.call('/api/v1/recommend?limit=2', { apiKey: key, headers: { Authorization: `Bearer ${token}` } });

    const good = await recommend(unifiedToken);
    expect([good.status, good.body.code, good.headers.get('ratelimit-remaining')]).toEqual([200, '0', '2']);
    const bad = await recommend('not.a.token');
    expect([bad.status, bad.body.code, bad.headers.get('ratelimit-remaining')]).toEqual([401, '10101', '1']);
    expect((await recommend(unifiedToken)).headers.get('ratelimit-remaining')).toBe('0');

    for (const token of [unifiedToken, 'not.a.token']) {
      const refused = await recommend(token);
      expect([refused.status, refused.body.code, refused.body.data]).toEqual([429, '10110', null]);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
  });
});

describe('tokens', () => {
  const sign = async (claims: Record<string, unknown>, options: { issuer?: string; audience?: string; expiresIn?: string | number } = {}) =>
    new SignJWT({ address: wallet.address.toLowerCase(), ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: api.signingJwk.kid })
      .setSubject(me)
      .setIssuer(options.issuer ?? api.config.API_JWT_ISSUER)
      .setAudience(options.audience ?? api.config.API_JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '1h')
      .sign(await importJWK(api.signingJwk, 'ES256'));

  it.each([
    ['expired', async () => sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 10 }), 401, '10100'],
    ['from another issuer', async () => sign({}, { issuer: 'evil' }), 401, '10102'],
    ['for another audience', async () => sign({}, { audience: 'someone-else' }), 401, '10101'],
    ['tampered', async () => {
      const [h, p, s] = unifiedToken.split('.');
      const payload = JSON.parse(new TextDecoder().decode(base64url.decode(p!)));
      return [h, base64url.encode(JSON.stringify({ ...payload, sub: candidate(9) })), s].join('.');
    }, 401, '10101'],
    ['alg none', async () => {
      const [, p] = unifiedToken.split('.');
      return `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${p}.`;
    }, 401, '10101'],
    ['HS256 signed with the public key', async () => {
      const publicJwk = { kty: api.signingJwk.kty, crv: api.signingJwk.crv, x: api.signingJwk.x, y: api.signingJwk.y };
      return new SignJWT({ address: wallet.address.toLowerCase() })
        .setProtectedHeader({ alg: 'HS256', kid: api.signingJwk.kid })
        .setSubject(me)
        .setIssuer(api.config.API_JWT_ISSUER)
        .setAudience(api.config.API_JWT_AUDIENCE)
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    }, 401, '10101'],
  ])('refuses a unified token %s', async (_name, token, status, code) => {
    const { status: s, body } = await get('/api/v1/recommend', await token());
    expect([s, body.code]).toEqual([status, code]);
  });

  it('answers 10103 without a bearer token', async () => {
    const { status, body } = await api.call('/api/v1/recommend', { apiKey });
    expect([status, body.code]).toEqual([401, '10103']);
  });

  it('refuses a replayed SIWE nonce', async () => {
    const login = await signIn(wallet);
    const post = () => api.call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: JSON.stringify(login) });
    expect((await post()).body.code).toBe('0');
    const replay = await post();
    expect([replay.status, replay.body.code]).toEqual([401, '10105']);
  });

  it('refuses a SIWE domain the ApiKey does not allow', async () => {
    const login = await signIn(wallet, { domain: 'evil.example' });
    const { status, body } = await api.call('/api/v1/auth/address-token', { apiKey, method: 'POST', body: JSON.stringify(login) });
    expect([status, body.code]).toEqual([403, '10122']);
  });
});

describe('parameters', () => {
  it.each(['0', '101', '-1', 'abc', '1.5'])('answers 10200 for limit=%s', async (limit) => {
    const { status, body } = await get(`/api/v1/recommend?limit=${limit}`);
    expect([status, body.code]).toEqual([400, '10200']);
    expect(body.desc).toContain('limit');
  });

  it('answers 10202 for a tampered cursor', async () => {
    const { body: first } = await get('/api/v1/recommend?limit=1');
    const cursor: string = first.data.cursor;
    const tampered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    const { status, body } = await get(`/api/v1/recommend?cursor=${encodeURIComponent(tampered)}`);
    expect([status, body.code]).toEqual([400, '10202']);
  });

  it('answers 10200 for several identifiers and for none', async () => {
    for (const query of ['?address=0x' + '1'.repeat(40) + '&socialUsername=a', '']) {
      const { status, body } = await api.call(`/api/v1/sbt/list${query}`, { apiKey });
      expect([status, body.code]).toEqual([400, '10200']);
    }
  });

  it('answers 11601 for an unknown query parameter', async () => {
    const { status, body } = await api.call('/api/v1/sbt/list?address=0x' + '1'.repeat(40) + '&chain=1', { apiKey });
    expect([status, body.code]).toEqual([400, '11601']);
    expect(body.desc).toContain('chain');
  });

  it('lets browsers call it: preflights answer 204 and responses allow any origin', async () => {
    const preflight = await api.call('/api/v1/recommend', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.acme.xyz', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'apikey, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('ApiKey');
    expect((await api.call('/healthz')).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers 11601 for a query parameter the nonce endpoint does not know', async () => {
    const { status, body } = await api.call('/api/v1/auth/nonce?ttl=9', { apiKey });
    expect([status, body.code]).toEqual([400, '11601']);
  });

  it('names the I-Authorization header when the auth endpoint gets no address token', async () => {
    const { status, body } = await api.call('/api/v1/auth', { apiKey, method: 'POST', body: '{}' });
    expect([status, body.code, body.desc]).toEqual([401, '10103', 'token missing: send I-Authorization: Bearer <token>']);
  });

  it('answers 10104 for a message that is not EIP-4361', async () => {
    const { status, body } = await api.call('/api/v1/auth/address-token', {
      apiKey,
      method: 'POST',
      body: JSON.stringify({ message: 'please let me in', signature: '0x1234' }),
    });
    expect([status, body.code]).toEqual([401, '10104']);
  });

  it('answers the envelope for unknown paths, wrong methods and bad JSON', async () => {
    expect((await api.call('/healthz', { method: 'POST' })).status).toBe(405);
    expect((await api.call('/api/v2/nothing')).body).toEqual({ code: '10404', desc: 'no such endpoint: GET /api/v2/nothing', data: null });
    const wrongMethod = await api.call('/api/v1/recommend', { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.body.code, wrongMethod.headers.get('allow')]).toEqual([405, '10405', 'GET']);
    const badJson = await api.call('/api/v1/auth', { apiKey, method: 'POST', body: '{"inviteCode":', headers: { 'Content-Type': 'application/json' } });
    expect([badJson.status, badJson.body.code]).toEqual([400, '10201']);
  });
});

describe('SBT list', () => {
  const other = '0x' + 'e'.repeat(40);
  const mint = (tokenId: string, owner: string) => ({
    chainId: 1,
    contract: '0x22c1f6050e56d2876009903609a2cc3fef83b415',
    tokenId,
    owner,
    sbtName: `Badge ${tokenId}`,
    mintedAt: '2024-01-01T00:00:00Z',
    imageUrl: 'ipfs://image',
    metadataUrl: 'https://example.com/meta',
  });

  beforeAll(async () => {
    await ingestFiles(api, 'profiles', [
      await writeJsonLines('holder.jsonl', [
        { profileId: 'p_holder', name: 'Holder', addresses: ['0x' + 'a'.repeat(40), '0x' + 'b'.repeat(40)], socialUsername: 'Holder_X', gamePlatformId: 'steam:42' },
        { profileId: 'p_no_sbts', name: 'Empty-handed', addresses: ['0x' + 'c'.repeat(40)], socialUsername: 'empty_handed', gamePlatformId: 'steam:43' },
      ]),
    ]);
    await ingestFiles(api, 'sbt-mints', [
      await writeJsonLines('mints.jsonl', [mint('1', '0x' + 'a'.repeat(40)), mint('2', '0x' + 'b'.repeat(40)), mint('3', other)]),
    ]);
  });

  it('lists the SBTs of all addresses of a profile, by address, handle (any case) or game id', async () => {
    for (const query of [`address=0x${'A'.repeat(40)}`, 'socialUsername=holder_x', 'gamePlatformId=steam:42']) {
      const { body } = await api.call(`/api/v1/sbt/list?${query}`, { apiKey });
      expect(body.code).toBe('0');
      expect(body.data.map((s: { tokenId: string }) => s.tokenId)).toEqual(['1', '2']);
      expect(Object.keys(body.data[0]).sort()).toEqual(['contractAddress', 'imageUrl', 'metadataUrl', 'rdfData', 'sbtName', 'tokenId']);
    }
  });

  it('lists what an address of no profile holds, and answers 11602 when nothing matches', async () => {
    expect((await api.call(`/api/v1/sbt/list?address=${other}`, { apiKey })).body.data).toHaveLength(1);
    for (const query of [`address=0x${'9'.repeat(40)}`, 'socialUsername=nobody', 'gamePlatformId=none:1']) {
      const { status, body } = await api.call(`/api/v1/sbt/list?${query}`, { apiKey });
      expect([status, body.code]).toEqual([404, '11602']);
    }
  });

  it('answers an empty list, not 11602, for a profile that holds no SBT', async () => {
    for (const query of [`address=0x${'c'.repeat(40)}`, 'socialUsername=Empty_Handed', 'gamePlatformId=steam:43']) {
      const { status, body } = await api.call(`/api/v1/sbt/list?${query}`, { apiKey });
      expect([status, body.code, body.data]).toEqual([200, '0', []]);
    }
  });

  it('answers 10200 naming the parameter for a malformed address', async () => {
    const { status, body } = await api.call('/api/v1/sbt/list?address=0x123', { apiKey });
    expect([status, body.code]).toEqual([400, '10200']);
    expect(body.desc).toContain('address');
  });
});

describe('documentation and health', () => {
  it('serves an OpenAPI 3.1 document describing every endpoint, and a reference page without a CDN', async () => {
    const { body } = await api.call('/api/v1/openapi.json');
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/recommend', '/api/v1/auth', '/api/v1/auth/nonce', '/api/v1/auth/address-token', '/api/v1/sbt/list']),
    );
    const page = await fetch(`${api.url}/docs/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
  });

  it('reports liveness and readiness', async () => {
    expect((await api.call('/healthz')).body.data).toEqual({ status: 'ok' });
    expect((await api.call('/readyz')).body.data).toEqual({ status: 'ready' });
  });
});


/**
 * Express apps inside the app, found through its router: whether mounted with app.use (a
 * layer Express 5 names `mounted_app`) or handed to a router as a handler (an app is a
 * function with `request` and `response`), each sets every request's prototypes to its own,
 * the per-request change api/server/http-server.ts exists to avoid.
 */
function subApps(stack: unknown[]): string[] {
  return stack.flatMap((layer) => {
    const { handle, route } = layer as { handle?: { name?: string; stack?: unknown[]; request?: unknown; response?: unknown }; route?: { stack: unknown[] } };
    if (handle?.name === 'mounted_app' || (handle?.request !== undefined && handle.response !== undefined)) return [String((layer as { matchers?: unknown }).matchers)];
    return [...(handle?.stack ? subApps(handle.stack) : []), ...(route ? subApps(route.stack) : [])];
  });
}

describe('the HTTP server', () => {
  it("runs the API's app, which mounts no sub-app (api/server/http-server.ts holds only then)", async () => {
    const sample = express();
    sample.use('/mounted', express());
    sample.use(express.Router().use('/in-a-router', express()));
    sample.get('/route', express.Router(), (_req, res) => res.end());
    expect(subApps(sample.router.stack)).toHaveLength(2);

    const app = api.server.listeners('request')[0] as Express;
    expect(app.router.stack.length).toBeGreaterThan(10);
    expect(subApps(app.router.stack)).toEqual([]);
  });
});
