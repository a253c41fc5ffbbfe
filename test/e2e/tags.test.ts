/**
 * Encrypted user tags end to end: the real API over HTTP, real custodian processes, real
 * ClickHouse and Redis, wallets that sign with viem, and the SDK decrypting.
 */
import { createSiweMessage } from 'viem/siwe';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { verifyAndDecryptWithSignatureShares } from '@lit-protocol/crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { decryptTagsWithKey, tagDecryptionParams } from '../../shared/tag-crypto/tag-ciphertext.ts';
import { beginSnapshot, setSnapshotStatus } from '../../pipeline/materialize/publish/snapshots.ts';
import { writeProfileTags } from '../../pipeline/materialize/write/profile-tags.ts';
import { authSigOf, custodianDecryptor, SoulgraphClient, TagDecryptionError, type TagAuthorization } from '../../sdk/index.ts';
import { useApi } from '../support/api-harness.ts';
import { waitFor } from '../support/child-process.ts';
import { useCustodians } from '../support/custodian-harness.ts';
import { ingestFiles, writeJsonLines } from '../support/pipeline-harness.ts';

const custodians = useCustodians();
const api = useApi({ TAG_NETWORK_PUBLIC_KEY: custodians.publicKey });

const DOMAIN = 'app.acme.xyz';
const alice = privateKeyToAccount(generatePrivateKey());
const aliceSecondWallet = privateKeyToAccount(generatePrivateKey());
const bob = privateKeyToAccount(generatePrivateKey());
const carol = privateKeyToAccount(generatePrivateKey()); // a profile without SBTs
const mallory = privateKeyToAccount(generatePrivateKey()); // no profile
const lower = (a: PrivateKeyAccount) => a.address.toLowerCase();
const contract = (c: string) => `0x${c.repeat(40)}`;

let apiKey: string;
let client: SoulgraphClient;

function decryptor(urls = custodians.urls) {
  return custodianDecryptor({ custodians: urls, threshold: custodians.threshold, publicKey: custodians.publicKey });
}

interface MessageFields {
  domain?: string;
  statement?: string;
  chainId?: number;
  issuedAt?: Date;
  expirationTime?: Date | undefined;
  notBefore?: Date;
}

/** A tag authorization signed by `account`, with any field overridden. */
async function authorization(account: PrivateKeyAccount, fields: MessageFields = {}): Promise<TagAuthorization> {
  const issuedAt = fields.issuedAt ?? new Date();
  const message = createSiweMessage({
    domain: fields.domain ?? DOMAIN,
    address: account.address,
    statement: fields.statement ?? 'Access to User Tag.',
    uri: `https://${DOMAIN}`,
    version: '1',
    chainId: fields.chainId ?? 1,
    nonce: 'tagnonce12345678',
    issuedAt,
    ...('expirationTime' in fields ? (fields.expirationTime ? { expirationTime: fields.expirationTime } : {}) : { expirationTime: new Date(issuedAt.getTime() + 3_600_000) }),
    ...(fields.notBefore ? { notBefore: fields.notBefore } : {}),
  });
  return { message, sig: await account.signMessage({ message }), address: account.address };
}

function tagPath(query: Record<string, string>, auth: Pick<TagAuthorization, 'message' | 'sig'>): string {
  return `/api/v1/tag?${new URLSearchParams({ ...query, sig: auth.sig, message: auth.message })}`;
}

beforeAll(async () => {
  await ingestFiles(api, 'profiles', [
    await writeJsonLines('profiles.jsonl', [
      { profileId: 'p_alice', name: 'Alice', addresses: [lower(alice), lower(aliceSecondWallet)], socialUsername: 'alice_eth', gamePlatformId: 'steam:1' },
      { profileId: 'p_bob', name: 'Bob', addresses: [lower(bob)], socialUsername: 'bob_eth' },
      { profileId: 'p_carol', name: 'Carol', addresses: [lower(carol)] },
    ]),
  ]);
  await ingestFiles(api, 'sbt-issuers', [
    await writeJsonLines('issuers.jsonl', [
      { chainId: 1, contract: contract('1'), issuer: 'Arena', categories: ['GameFi', 'DAO'] },
      { chainId: 1, contract: contract('2'), issuer: 'Lender', categories: ['DeFi'] },
    ]),
  ]);
  const mint = (owner: string, c: string, tokenId: string) => ({ chainId: 1, contract: contract(c), tokenId, owner, sbtName: `SBT ${tokenId}`, mintedAt: '2024-01-01T00:00:00Z' });
  await ingestFiles(api, 'sbt-mints', [
    await writeJsonLines('mints.jsonl', [mint(lower(alice), '1', '1'), mint(lower(aliceSecondWallet), '2', '2'), mint(lower(bob), '2', '3')]),
  ]);
  const snapshotId = await beginSnapshot(api.ch);
  await writeProfileTags(api.ch, snapshotId);
  await setSnapshotStatus(api.ch, snapshotId, 'ready');
  apiKey = (await api.createApiKey(['--name', 'acme', '--domain', DOMAIN])).key;
  client = new SoulgraphClient({ baseUrl: api.url, apiKey });
});

describe('GET /api/v1/tag, end to end through the SDK', () => {
  it("decrypts a user's own tags, equal to the snapshot's, by address, social username and game-platform id", async () => {
    const auth = await client.authorizeTagAccess(alice, { domain: DOMAIN, uri: `https://${DOMAIN}`, chainId: 1 });
    for (const user of [{ address: alice.address }, { socialUsername: 'alice_eth' }, { gamePlatformId: 'steam:1' }]) {
      expect(await client.tags(user, auth, decryptor())).toEqual(['DAO', 'DeFi', 'GameFi']);
    }
  });

  it('lets any address of the profile sign, and gives a profile without tags in the snapshot an encrypted empty list', async () => {
    const second = await authorization(aliceSecondWallet);
    expect(await client.tags({ socialUsername: 'alice_eth' }, second, decryptor())).toEqual(['DAO', 'DeFi', 'GameFi']);
    const carolAuth = await authorization(carol);
    expect(await client.tags({ address: carol.address }, carolAuth, decryptor())).toEqual([]);
  });

  it("is Lit's format: @lit-protocol/crypto's verifyAndDecryptWithSignatureShares decrypts the key with the custodians' shares", async () => {
    const auth = await authorization(bob);
    const encrypted = await client.fetchTags({ address: bob.address }, auth);
    const params = tagDecryptionParams(encrypted.encryptedString, { signer: bob.address, chainId: 1, domain: DOMAIN });
    const shares = await Promise.all(
      custodians.urls.slice(0, custodians.threshold).map(async (url) => {
        const response = await fetch(`${url}/v1/decryption-share`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ accessControlConditions: params.accessControlConditions, encryptedDataHash: params.encryptedDataHash, authSig: authSigOf(auth) }),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { signatureShare: { ProofOfPossession: string } }).signatureShare;
      }),
    );
    // Lit 7.4.0 console.logs the combined signature (the decryption key) while decrypting: not in our output.
    const quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const key = await verifyAndDecryptWithSignatureShares(custodians.publicKey, params.identity, encrypted.encryptedSymmetricKey, shares);
      expect(await decryptTagsWithKey(encrypted.encryptedString, key)).toEqual(['DeFi']);
      await expect(verifyAndDecryptWithSignatureShares(custodians.publicKey, params.identity, encrypted.encryptedSymmetricKey, shares.slice(0, 2))).rejects.toThrow();
    } finally {
      quiet.mockRestore();
    }
  });

  it('serves the same ciphertext again from the cache, and it still decrypts', async () => {
    const auth = await authorization(bob);
    const first = await client.fetchTags({ socialUsername: 'bob_eth' }, auth);
    const second = await client.fetchTags({ address: bob.address }, auth);
    expect(second).toEqual(first);
    expect(await client.decryptTags(second, auth, decryptor())).toEqual(['DeFi']);
  });
});

describe('the same ciphertext cannot be decrypted', () => {
  let auth: TagAuthorization;
  let encrypted: { encryptedString: string; encryptedSymmetricKey: string };
  beforeAll(async () => {
    auth = await authorization(alice);
    encrypted = await client.fetchTags({ address: alice.address }, auth);
  });

  it('from what the API holds: its answer and settings carry no share, and no custodian means no key', async () => {
    expect(Object.keys(api.config).filter((k) => /SHARE|CUSTODIAN_KEY/.test(k) && (api.config as Record<string, unknown>)[k])).toEqual([]);
    expect(JSON.stringify(encrypted)).not.toMatch(/ProofOfPossession/);
    await expect(client.decryptTags(encrypted, auth, decryptor([]))).rejects.toThrow(TagDecryptionError);
  });

  it('with t-1 custodians', async () => {
    await expect(client.decryptTags(encrypted, auth, decryptor(custodians.urls.slice(0, custodians.threshold - 1)))).rejects.toThrow(
      /fewer than 3 custodians gave a valid share \(2 answered\)/,
    );
    expect(await client.decryptTags(encrypted, auth, decryptor(custodians.urls.slice(0, custodians.threshold)))).toEqual(['DAO', 'DeFi', 'GameFi']);
  });

  it('with an authSig of another address: the custodians answer 403 condition-not-met', async () => {
    const other = await authorization(mallory);
    await expect(client.decryptTags(encrypted, { ...other, address: alice.address }, decryptor())).rejects.toThrow(/auth-sig-address|condition-not-met/);
    const response = await fetch(`${custodians.urls[0]}/v1/decryption-share`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        accessControlConditions: [{ contractAddress: '', standardContractType: '', chain: 'ethereum', method: '', parameters: [':userAddress'], returnValueTest: { comparator: '=', value: lower(alice) } }],
        encryptedDataHash: 'a'.repeat(64),
        authSig: { sig: other.sig, derivedVia: 'web3.eth.personal.sign', signedMessage: other.message, address: lower(mallory) },
      }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'condition-not-met' });
  });

  it('with an expired message (the custodians check the time themselves)', async () => {
    const expired = await authorization(alice, { issuedAt: new Date(Date.now() - 7_200_000), expirationTime: new Date(Date.now() - 1_000) });
    await expect(client.decryptTags(encrypted, expired, decryptor())).rejects.toThrow(/auth-sig-expired/);
  });

  it('with a message whose statement differs', async () => {
    const other = await authorization(alice, { statement: 'Sign in to soulgraph' });
    await expect(client.decryptTags(encrypted, other, decryptor())).rejects.toThrow(/auth-sig-statement/);
  });

  it('with a message whose domain differs: the custodians sign another identity, and those shares do not decrypt', async () => {
    const other = await authorization(alice, { domain: 'evil.example' });
    const failure = client.decryptTags(encrypted, other, decryptor());
    await expect(failure).rejects.toThrow(TagDecryptionError);
    await expect(failure).rejects.toThrow(/^decryption failed: wrong key or corrupted ciphertext \(were the tags fetched with an authorization for another domain/);
  });
});

describe('GET /api/v1/tag rejections', () => {
  const call = (path: string) => api.call(path, { apiKey });

  it('answers 10200 without sig or message, or without exactly one identifier', async () => {
    const auth = await authorization(alice);
    expect((await call(`/api/v1/tag?address=${alice.address}&message=${encodeURIComponent(auth.message)}`)).body.code).toBe('10200');
    expect((await call(`/api/v1/tag?address=${alice.address}&sig=${auth.sig}`)).body.code).toBe('10200');
    const both = await call(tagPath({ address: alice.address, socialUsername: 'alice_eth' }, auth));
    expect([both.status, both.body.code]).toEqual([400, '10200']);
    const none = await call(tagPath({}, auth));
    expect([none.status, none.body.code]).toEqual([400, '10200']);
  });

  it('answers 11601 for a parameter it does not know', async () => {
    const auth = await authorization(alice);
    const answer = await call(tagPath({ address: alice.address, extra: '1' }, auth));
    expect([answer.status, answer.body.code, answer.body.data]).toEqual([400, '11601', null]);
  });

  it.each([
    ['a message that is not EIP-4361', async () => ({ message: 'hello', sig: (await authorization(alice)).sig }), 401, '10104'],
    ['a statement other than "Access to User Tag."', () => authorization(alice, { statement: 'Sign in to soulgraph' }), 401, '10106'],
    ['a domain the ApiKey does not allow', () => authorization(alice, { domain: 'evil.example' }), 403, '10122'],
    ['issuedAt in the future', () => authorization(alice, { issuedAt: new Date(Date.now() + 600_000) }), 401, '10104'],
    ['notBefore in the future', () => authorization(alice, { notBefore: new Date(Date.now() + 600_000) }), 401, '10104'],
    ['no expirationTime', () => authorization(alice, { expirationTime: undefined }), 401, '10108'],
    ['an expirationTime in the past', () => authorization(alice, { issuedAt: new Date(Date.now() - 7_200_000), expirationTime: new Date(Date.now() - 1000) }), 401, '10107'],
    ['an expirationTime more than 24 h after issuedAt', () => authorization(alice, { expirationTime: new Date(Date.now() + 25 * 3_600_000) }), 401, '10108'],
    ['an unsupported chain id', () => authorization(alice, { chainId: 999_999 }), 401, '10104'],
    ['a signature by someone else than the message address', async () => ({ ...(await authorization(alice)), sig: (await authorization(bob)).sig }), 401, '10104'],
  ])('answers %s with %i %s', async (_name, make, status, code) => {
    const auth = await make();
    const answer = await call(tagPath({ address: alice.address }, auth));
    expect([answer.status, answer.body.code, answer.body.data]).toEqual([status, code, null]);
  });

  it('answers 403 10123 when the signer is not the user asked about, by any identifier, and never returns data', async () => {
    const malloryAuth = await authorization(mallory);
    for (const query of <Record<string, string>[]>[{ address: alice.address }, { socialUsername: 'alice_eth' }, { gamePlatformId: 'steam:1' }]) {
      const answer = await call(tagPath(query, malloryAuth));
      expect([answer.status, answer.body.code, answer.body.data]).toEqual([403, '10123', null]);
    }
    const bobAuth = await authorization(bob);
    const answer = await call(tagPath({ socialUsername: 'alice_eth' }, bobAuth));
    expect([answer.status, answer.body.code]).toEqual([403, '10123']);
  });

  it('answers 11602 when no profile has the identifier (after the signature checks)', async () => {
    const malloryAuth = await authorization(mallory);
    const byAddress = await call(tagPath({ address: mallory.address }, malloryAuth));
    expect([byAddress.status, byAddress.body.code]).toEqual([404, '11602']);
    const byHandle = await call(tagPath({ socialUsername: 'nobody_here' }, malloryAuth));
    expect([byHandle.status, byHandle.body.code]).toEqual([404, '11602']);
  });

  it('checks a remembered message again for time and for the ApiKey of each request', async () => {
    const auth = await authorization(alice);
    expect((await call(tagPath({ address: alice.address }, auth))).status).toBe(200);
    const other = (await api.createApiKey(['--name', 'other', '--domain', 'other.example'])).key;
    // A new key is served once the API's key cache refreshes (APIKEY_CACHE_SECONDS, 1 s here).
    await waitFor(async () => (await api.call('/api/v1/auth/nonce', { apiKey: other })).status === 200, 5_000, 'the new key');
    const answer = await api.call(tagPath({ address: alice.address }, auth), { apiKey: other });
    expect([answer.status, answer.body.code]).toEqual([403, '10122']);
  });
});
