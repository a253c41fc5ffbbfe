/**
 * The recommend endpoint's bearer check remembers verified tokens: remembering must never
 * let through what verification would refuse.
 */
import type { Request, Response } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../api/common/envelope.ts';
import { errorCodes } from '../../api/common/error-codes.ts';
import { requireUnifiedToken } from '../../api/auth/unified-auth.ts';
import { loadSigningKeys, type SigningKeys } from '../../api/auth/signing-keys.ts';
import { issueUnifiedToken } from '../../api/auth/unified-token.ts';
import { parseConfig, type Config } from '../../shared/config.ts';
import { generateSigningKeyJwk } from '../../shared/signing-key-jwk.ts';

const subject = { profileId: 'p_42', address: '0x00000000000000000000000000000000000000aa' };
const ISSUED = Date.parse('2026-01-01T00:00:00Z');
let config: Config;
let keys: SigningKeys;

beforeAll(async () => {
  config = parseConfig({ NODE_ENV: 'test', UNIFIED_TOKEN_TTL_SECONDS: '3600', API_SIGNING_KEYS: JSON.stringify([await generateSigningKeyJwk()]) });
  keys = await loadSigningKeys(config);
});

/** Runs the middleware once: the caller it set, or the envelope code it refused with. */
async function check(handler: ReturnType<typeof requireUnifiedToken>, token: string): Promise<{ caller?: unknown; code?: string }> {
  const req = { get: (name: string) => (name === 'Authorization' ? `Bearer ${token}` : undefined) } as unknown as Request;
  const res = { locals: {} } as Response;
  try {
    await handler(req, res, () => {});
    return { caller: res.locals.caller };
  } catch (error) {
    if (error instanceof ApiError) return { code: errorCodes[error.errorName].code };
    throw error;
  }
}

describe('the unified-token check', () => {
  it('sets the caller from a valid token, again from memory on the next request', async () => {
    let now = ISSUED;
    const handler = requireUnifiedToken(keys, config, () => now);
    const token = await issueUnifiedToken(keys, config, subject, new Date(ISSUED));
    expect(await check(handler, token)).toEqual({ caller: subject });
    now += 1_000;
    expect(await check(handler, token)).toEqual({ caller: subject });
  });

  it('answers 10100 for a token verified earlier once it has expired', async () => {
    let now = ISSUED;
    const handler = requireUnifiedToken(keys, config, () => now);
    const token = await issueUnifiedToken(keys, config, subject, new Date(ISSUED));
    expect(await check(handler, token)).toEqual({ caller: subject });
    now = ISSUED + 3_600_000 + 1_000;
    expect(await check(handler, token)).toEqual({ code: '10100' });
  });

  it('answers 10101 for a remembered token with one character of its signature changed', async () => {
    const handler = requireUnifiedToken(keys, config, () => ISSUED);
    const token = await issueUnifiedToken(keys, config, subject, new Date(ISSUED));
    expect(await check(handler, token)).toEqual({ caller: subject });
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    expect(await check(handler, `${token.slice(0, -2)}${last}${token.at(-1)}`)).toEqual({ code: '10101' });
  });
});

describe('tokens verified together', () => {
  it('are remembered for 45 to 75 s each, so that they are not verified again all at once', async () => {
    let now = ISSUED;
    let lookups = 0;
    const counted = Object.create(keys) as SigningKeys;
    counted.keyFor = (kid) => {
      lookups++;
      return keys.keyFor(kid);
    };
    // Evenly spread draws, as Math.random gives over many tokens.
    const TOKENS = 10;
    let draw = 0;
    const handler = requireUnifiedToken(counted, config, () => now, () => (draw++ % TOKENS) / (TOKENS - 1));
    const tokens = await Promise.all(
      Array.from({ length: TOKENS }, (_, i) => issueUnifiedToken(keys, config, { ...subject, profileId: `p_${i}` }, new Date(ISSUED))),
    );
    const verifiedAgainAt = async (ms: number) => {
      now = ISSUED + ms;
      const before = lookups;
      for (const token of tokens) expect((await check(handler, token)).caller).toBeDefined();
      return lookups - before;
    };
    expect(await verifiedAgainAt(0)).toBe(TOKENS);
    expect(await verifiedAgainAt(44_999)).toBe(0);
    // Each check from here on re-verifies only what has left since the last one.
    expect(await verifiedAgainAt(52_000)).toBe(3); // kept 45, 48.3 and 51.7 s
    expect(await verifiedAgainAt(62_000)).toBe(3); // 55, 58.3 and 61.7 s
    expect(await verifiedAgainAt(75_000)).toBe(4); // 65, 68.3, 71.7 and 75 s
  });
});

describe('concurrent requests with the same new token', () => {
  /** The signing keys, counting how many verifications asked for a key. */
  function countingKeys(): { keys: SigningKeys; lookups: () => number } {
    let lookups = 0;
    const counted = Object.create(keys) as SigningKeys;
    counted.keyFor = (kid) => {
      lookups++;
      return keys.keyFor(kid);
    };
    return { keys: counted, lookups: () => lookups };
  }

  it('verify it once, and each gets the caller', async () => {
    const { keys: counted, lookups } = countingKeys();
    const handler = requireUnifiedToken(counted, config, () => ISSUED);
    const token = await issueUnifiedToken(keys, config, subject, new Date(ISSUED));
    const answers = await Promise.all(Array.from({ length: 8 }, () => check(handler, token)));
    expect(answers).toEqual(Array.from({ length: 8 }, () => ({ caller: subject })));
    expect(lookups()).toBe(1);
  });

  it('each get the refusal of a bad token, and a later request verifies it again', async () => {
    const { keys: counted, lookups } = countingKeys();
    const handler = requireUnifiedToken(counted, config, () => ISSUED);
    const token = await issueUnifiedToken(keys, config, subject, new Date(ISSUED));
    const tampered = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => check(handler, tampered)));
    expect(answers).toEqual(Array.from({ length: 4 }, () => ({ code: '10101' })));
    expect(lookups()).toBe(1);
    expect(await check(handler, tampered)).toEqual({ code: '10101' });
    expect(lookups()).toBe(2);
  });
});
