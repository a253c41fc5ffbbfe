/**
 * The tag crypto against Lit Protocol's own implementation (@lit-protocol/crypto 7.4.0,
 * a dev dependency): the same ciphertext format both ways, the same share format, and
 * the failures that must fail.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { encrypt as litEncrypt, verifyAndDecryptWithSignatureShares } from '@lit-protocol/crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashAccessControlConditions, identityOf, userAddressConditions } from '../../shared/tag-crypto/access-conditions.ts';
import { base64ToBytes, bytesToBase64 } from '../../shared/tag-crypto/base64.ts';
import { DecryptionError, decryptWithSignature, encryptToIdentity, hashIdentity } from '../../shared/tag-crypto/lit-ibe.ts';
import {
  combineSignatureShares,
  publicKeyOf,
  randomScalar,
  signIdentityShare,
  splitSecret,
  toLitShare,
  verifyIdentitySignature,
} from '../../shared/tag-crypto/threshold-signatures.ts';

const master = randomScalar();
const publicKey = publicKeyOf(master);
const publicKeyHex = bytesToHex(publicKey.toBytes(true));
const shares = splitSecret(master, 5, 3);
const identity = new TextEncoder().encode('lit-accesscontrolcondition://abc/def');
const litShares = (id: Uint8Array, picked = shares.slice(0, 3)) => picked.map((s) => toLitShare(signIdentityShare(s, id)));

// Lit 7.4.0 console.logs the combined signature (the decryption key) while decrypting.
let quiet: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => quiet.mockRestore());

describe("Lit's BLS12-381 identity-based encryption", () => {
  it.each([0, 1, 31, 32, 33, 127, 128, 300])('decrypts what Lit encrypts, and Lit decrypts ours (%i bytes)', async (length) => {
    const message = globalThis.crypto.getRandomValues(new Uint8Array(length));
    const fromLit = await litEncrypt(publicKeyHex, message, identity);
    expect(decryptWithSignature(fromLit, hashIdentity(identity).multiply(master))).toEqual(message);
    const ours = encryptToIdentity(publicKey, message, identity);
    expect(new Uint8Array(await verifyAndDecryptWithSignatureShares(publicKeyHex, identity, ours, litShares(identity)))).toEqual(message);
  });

  it('combines any 3 of 5 shares into the master signature, and 2 into nothing valid', () => {
    const combined = combineSignatureShares([shares[4]!, shares[1]!, shares[2]!].map((s) => signIdentityShare(s, identity)));
    expect(combined.equals(hashIdentity(identity).multiply(master))).toBe(true);
    expect(verifyIdentitySignature(publicKey, identity, combined)).toBe(true);
    const two = combineSignatureShares(shares.slice(0, 2).map((s) => signIdentityShare(s, identity)));
    expect(verifyIdentitySignature(publicKey, identity, two)).toBe(false);
  });

  it('refuses to decrypt with t-1 shares, with a signature on another identity, or a tampered ciphertext', async () => {
    const key = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const ciphertext = encryptToIdentity(publicKey, key, identity);
    const two = combineSignatureShares(shares.slice(0, 2).map((s) => signIdentityShare(s, identity)));
    expect(() => decryptWithSignature(ciphertext, two)).toThrow(DecryptionError);
    await expect(verifyAndDecryptWithSignatureShares(publicKeyHex, identity, ciphertext, litShares(identity, shares.slice(0, 2)))).rejects.toThrow();
    const other = new TextEncoder().encode('lit-accesscontrolcondition://abc/other');
    expect(() => decryptWithSignature(ciphertext, hashIdentity(other).multiply(master))).toThrow(DecryptionError);
    const bytes = base64ToBytes(ciphertext);
    bytes[60]! ^= 1;
    expect(() => decryptWithSignature(bytesToBase64(bytes), hashIdentity(identity).multiply(master))).toThrow(DecryptionError);
  });

  it('calls a key that turns the length field into noise a failed decryption, like any wrong key', () => {
    // A wrong key gives a noise plaintext whose leading length field may not parse (1 in 32).
    // The same noise, made certain: XOR the ciphertext's W so the right key reads five
    // continuation bytes where leb128(32) and the message's first four bytes were.
    const key = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const bytes = base64ToBytes(encryptToIdentity(publicKey, key, identity));
    const wStart = 48 + 32 + 1; // after U, V and W's one-byte length (33)
    [32, ...key.slice(0, 4)].forEach((plain, i) => (bytes[wStart + i]! ^= plain ^ 0xff));
    expect(() => decryptWithSignature(bytesToBase64(bytes), hashIdentity(identity).multiply(master))).toThrow(
      /^decryption failed: wrong key or corrupted ciphertext$/,
    );
  });
});

describe('access-control identities', () => {
  it("hash Lit's canonical JSON of the \":userAddress\" condition", () => {
    const conditions = userAddressConditions('0xAbCdEf0000000000000000000000000000000001', 1);
    const json =
      '[{"contractAddress":"","chain":"ethereum","standardContractType":"","method":"","parameters":[":userAddress"],"returnValueTest":{"comparator":"=","value":"0xabcdef0000000000000000000000000000000001"}}]';
    const expected = createHash('sha256').update(json).digest('hex');
    expect(hashAccessControlConditions(conditions)).toBe(expected);
    expect(new TextDecoder().decode(identityOf(conditions, 'f'.repeat(64)))).toBe(`lit-accesscontrolcondition://${expected}/${'f'.repeat(64)}`);
  });
});

describe('the SDK', () => {
  it('imports nothing of the server: only sdk/, shared/tag-crypto/, viem and @noble, and no Node built-in', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const files = [...readdirSync(`${root}sdk`).map((f) => `sdk/${f}`), ...readdirSync(`${root}shared/tag-crypto`).map((f) => `shared/tag-crypto/${f}`)];
    const imports = files.flatMap((file) =>
      [...readFileSync(`${root}${file}`, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => `${file} -> ${m[1]}`),
    );
    const allowed = /-> (\.\/[\w-]+\.ts|\.\.\/shared\/tag-crypto\/[\w-]+\.ts|viem(\/\w+)?|@noble\/(curves|hashes)\/[\w/-]+\.js)$/;
    expect(imports.filter((line) => !allowed.test(line))).toEqual([]);
  });
});
