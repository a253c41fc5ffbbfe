import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiKeyRowSchema, hashApiKey, isApiKeyId, mintApiKey, parseApiKey } from '../../shared/api-keys.ts';

const KEY_FORMAT = /^sg_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$/;

describe('minting API keys', () => {
  it('makes keys of the form sg_<12 hex>_<32 base64url> whose id is the visible prefix', () => {
    for (let i = 0; i < 200; i++) {
      const { key, keyId } = mintApiKey();
      expect(key).toMatch(KEY_FORMAT);
      expect(key.slice(3, 15)).toBe(keyId);
    }
  });

  it('returns the sha256 hex of the whole key as its hash', () => {
    const { key, keyHash } = mintApiKey();
    expect(keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(keyHash);
  });

  it('never repeats a key or an id', () => {
    const minted = Array.from({ length: 1_000 }, () => mintApiKey());
    expect(new Set(minted.map((m) => m.key)).size).toBe(1_000);
    expect(new Set(minted.map((m) => m.keyId)).size).toBe(1_000);
  });

  it('mints rows the api_keys schema accepts', () => {
    const { keyId, keyHash } = mintApiKey();
    const row = { key_id: keyId, key_hash: keyHash, name: 'acme', domains: ['app.acme.xyz'], rate_limit_per_minute: 0, created_at: 1, revoked_at: null, updated_at: 1 };
    expect(apiKeyRowSchema.parse(row)).toEqual(row);
  });
});

describe('parsing API keys', () => {
  it('gives the id of every minted key', () => {
    for (let i = 0; i < 200; i++) {
      const { key, keyId } = mintApiKey();
      expect(parseApiKey(key)).toEqual({ keyId });
      expect(isApiKeyId(keyId)).toBe(true);
    }
  });

  it('refuses anything not exactly in the format', () => {
    const { key } = mintApiKey();
    const secret = key.slice(16);
    for (const text of [
      '',
      key.slice(0, -1), // secret too short
      `${key}A`, // secret too long
      ` ${key}`,
      `${key}\n`,
      key.toUpperCase(),
      key.replace(/^sg_/, 'sk_'),
      `sg_ABCDEF012345_${secret}`, // id in upper case
      `sg_abcdef01234_${secret}`, // id of 11 characters
      `sg_abcdef012345-${secret}`,
      `sg_abcdef012345_${secret.slice(0, 31)}+`, // base64, not base64url
      `sg_abcdef012345_${secret.slice(0, 31)}=`,
    ]) {
      expect(parseApiKey(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('tells key ids from other text', () => {
    expect(isApiKeyId('0123456789ab')).toBe(true);
    for (const text of ['', '0123456789a', '0123456789abc', '0123456789AB', 'sg_0123456789ab', '0123456789ag']) {
      expect(isApiKeyId(text), text).toBe(false);
    }
  });
});

describe('hashing API keys', () => {
  it('is deterministic and tells apart keys that differ in one character', () => {
    const { key } = mintApiKey();
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key.slice(0, -1) + last)).not.toBe(hashApiKey(key));
  });
});
