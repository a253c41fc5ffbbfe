import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiKeyCache } from '../../api/server/api-key-cache.ts';
import { mintApiKey, parseApiKey, readActiveApiKeys } from '../../shared/api-keys.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { runSoulgraph } from '../support/child-process.ts';
import { runCliInProcess } from '../support/cli-in-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

/**
 * Creates a key with the CLI's own code, in this process; returns the key (stdout's only
 * line) and the whole output. The first test spawns the real CLI: what a shell captures.
 */
async function createKey(...args: string[]): Promise<{ key: string; output: string }> {
  const { code, stdout, output } = await runCliInProcess(['apikey', 'create', ...args], env.env);
  expect(code, output).toBe(0);
  expect(stdout, output).toMatch(/^sg_\S+\n$/);
  return { key: stdout.trim(), output };
}

async function revoke(keyId: string) {
  return runCliInProcess(['apikey', 'revoke', keyId], env.env);
}

/** The ClickHouse client with its reads counted, and failing on demand. */
/** Counts reads; `failing` makes them throw; `hold()` keeps them from finishing until released. */
function observedClickHouse(ch: ClickHouse) {
  const observed = { reads: 0, failing: false };
  let gate: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<unknown>>();
  const query: ClickHouse['query'] = async (statement, row) => {
    observed.reads++;
    if (observed.failing) throw new Error('ClickHouse is down');
    const read = gate.then(() => ch.query(statement, row));
    inFlight.add(read);
    return read.finally(() => inFlight.delete(read));
  };
  const hold = () => {
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    return release;
  };
  /** Resolves once no read is in flight. */
  const idle = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return Object.assign(observed, { ch: { query }, hold, idle });
}

function clock(start = Date.now()) {
  const time = { ms: start };
  return Object.assign(time, { now: () => time.ms, advance: (seconds: number) => (time.ms += seconds * 1000) });
}

describe('soulgraph apikey', () => {
  it('creates a key, prints it once (alone on stdout, for KEY=$(...)), and stores only its hash', async () => {
    const { code, output } = await runSoulgraph(['apikey', 'create', '--name', 'acme', '--domain', 'app.acme.xyz'], env.env);
    expect(code, output).toBe(0);
    const key = output.split('\n').find((line) => line.startsWith('sg_'))!;
    expect(key).toMatch(/^sg_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$/);
    expect(output.split(key).length - 1).toBe(1);
    expect(output).toContain('it will not be shown again');
    const keyId = parseApiKey(key)!.keyId;
    expect(output).toContain(`API key ${keyId} for acme, domains app.acme.xyz`);

    const rows = await env.ch.query(sql`SELECT * FROM api_keys WHERE key_id = ${keyId}`, z.record(z.string(), z.unknown()));
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(16)); // nor the secret alone
    expect(rows[0]).toMatchObject({ key_id: keyId, name: 'acme', domains: ['app.acme.xyz'], rate_limit_per_minute: 0, revoked_at: null });
  });

  it('keeps several domains (lower-cased, without repeats) and a rate limit of its own', async () => {
    const { key } = await createKey('--name', 'Beta Corp.', '--domain', 'App.Beta.io', '--domain', 'localhost:3000', '--domain', 'app.beta.io', '--rate-limit', '120');
    const active = (await readActiveApiKeys(env.ch)).find((k) => k.keyId === parseApiKey(key)!.keyId);
    expect(active).toMatchObject({ name: 'Beta Corp.', domains: ['app.beta.io', 'localhost:3000'], rateLimitPerMinute: 120 });
  });

  it('lists keys as active without the key or its hash', async () => {
    const { key } = await createKey('--name', 'listed', '--domain', 'listed.example');
    const keyId = parseApiKey(key)!.keyId;
    const { code, output } = await runCliInProcess(['apikey', 'list'], env.env);
    expect(code, output).toBe(0);
    expect(output).toMatch(/key id\s+name\s+domains\s+rate limit\s+created\s+status/);
    expect(output).toMatch(new RegExp(`^${keyId}\\s+listed\\s+listed\\.example\\s+default\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+active$`, 'm'));
    expect(output).toMatch(/Beta Corp\.\s+app\.beta\.io,localhost:3000\s+120\/min/);
    expect(output).not.toContain(key.slice(16));
    expect(output).not.toMatch(/[0-9a-f]{64}/);
  });

  it('revokes a key, and says so when it is revoked again', async () => {
    const { key } = await createKey('--name', 'gone', '--domain', 'gone.example');
    const keyId = parseApiKey(key)!.keyId;
    const first = await revoke(keyId);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`API key ${keyId} (gone) revoked`);
    expect((await readActiveApiKeys(env.ch)).map((k) => k.keyId)).not.toContain(keyId);

    const again = await revoke(keyId);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(`API key ${keyId} (gone) was already revoked at`);
    expect((await runCliInProcess(['apikey', 'list'], env.env)).output).toMatch(new RegExp(`^${keyId}\\s+gone\\s.*\\srevoked$`, 'm'));
  });

  it.each([
    [['create', '--name', 'acme'], 'at least one --domain is required'],
    [['create', '--name', 'acme', '--domain', 'not a host'], '--domain "not a host" is not a hostname with an optional port'],
    [['create', '--name', 'acme', '--domain', 'localhost:99999'], '--domain "localhost:99999" is not a hostname'],
    [['create', '--name', 'acme', '--domain', 'https://app.acme.xyz'], 'is not a hostname with an optional port'],
    [['create', '--domain', 'app.acme.xyz'], '--name is required'],
    [['create', '--name', 'a/b', '--domain', 'app.acme.xyz'], '--name may contain only'],
    [['create', '--name', 'x'.repeat(65), '--domain', 'app.acme.xyz'], '--name must be at most 64 characters'],
    [['create', '--name', 'acme', '--domain', 'app.acme.xyz', '--rate-limit', 'lots'], '--rate-limit must be a whole number'],
    [['revoke', '0123456789ab'], 'no API key with id 0123456789ab'],
    [['revoke', 'sg_0123'], '"sg_0123" is not a key id'],
  ])('refuses apikey %j with exit code 2 and one line', async (args, message) => {
    const { code, stdout, output } = await runCliInProcess(['apikey', ...args], env.env);
    expect(code, output).toBe(2);
    expect(stdout).toBe('');
    const lines = output.trim().split('\n');
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });
});

describe('the API key cache', () => {
  it('finds a key created by the CLI, and not a wrong or malformed key', async () => {
    const { key } = await createKey('--name', 'cached', '--domain', 'cached.example');
    const cache = createApiKeyCache(env.ch, { ttlSeconds: 30 });
    expect(await cache.lookup(key)).toMatchObject({ keyId: parseApiKey(key)!.keyId, name: 'cached', domains: ['cached.example'] });

    const wrongSecret = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(await cache.lookup(wrongSecret)).toBeUndefined();
    expect(await cache.lookup(mintApiKey().key)).toBeUndefined();
    expect(await cache.lookup('not a key')).toBeUndefined();
    expect(await cache.lookup('')).toBeUndefined();
  });

  it('costs one ClickHouse read per ttl, shared by concurrent lookups', async () => {
    const { key } = await createKey('--name', 'shared', '--domain', 'shared.example');
    const time = clock();
    const observed = observedClickHouse(env.ch);
    const cache = createApiKeyCache(observed.ch, { ttlSeconds: 10, now: time.now });

    const found = await Promise.all(Array.from({ length: 20 }, () => cache.lookup(key)));
    expect(found.every((r) => r?.name === 'shared')).toBe(true);
    expect(observed.reads).toBe(1);

    time.advance(7);
    await cache.lookup(key);
    await cache.lookup(mintApiKey().key);
    expect(observed.reads).toBe(1);

    time.advance(4);
    await Promise.all([cache.lookup(key), cache.lookup(key), cache.lookup(mintApiKey().key)]);
    expect(observed.reads).toBe(2);
  });

  it('reads ahead in the background from three quarters of ttl, answering from the copy it has meanwhile', async () => {
    const { key } = await createKey('--name', 'read-ahead', '--domain', 'ra.example');
    const time = clock();
    const observed = observedClickHouse(env.ch);
    const cache = createApiKeyCache(observed.ch, { ttlSeconds: 10, now: time.now });
    expect(await cache.lookup(key)).toBeDefined();

    // Revoked now; the copy read at 0 s still has the key.
    expect((await revoke(parseApiKey(key)!.keyId)).code).toBe(0);
    time.advance(8);
    const release = observed.hold(); // the read ahead cannot finish yet
    const answers = await Promise.all([cache.lookup(key), cache.lookup(key)]);
    expect(answers.every((a) => a !== undefined)).toBe(true); // nobody waited for the read
    expect(observed.reads).toBe(2); // one read ahead, shared

    release();
    await observed.idle();
    expect(await cache.lookup(key)).toBeUndefined(); // the new copy knows of the revocation
    expect(observed.reads).toBe(2);
  });

  it('stops finding a revoked key once its copy is older than ttl, not before', async () => {
    const { key } = await createKey('--name', 'revoked-later', '--domain', 'r.example');
    const time = clock();
    const cache = createApiKeyCache(env.ch, { ttlSeconds: 1, now: time.now });
    expect(await cache.lookup(key)).toBeDefined();

    expect((await revoke(parseApiKey(key)!.keyId)).code).toBe(0);
    time.advance(0.5);
    expect(await cache.lookup(key)).toBeDefined(); // the copy is still fresh
    time.advance(0.7); // 1.2 s after the copy was read
    expect(await cache.lookup(key)).toBeUndefined();
  });

  it('serves its previous copy for up to 2 x ttl while ClickHouse fails, then throws', async () => {
    const { key } = await createKey('--name', 'outage', '--domain', 'o.example');
    const time = clock();
    const observed = observedClickHouse(env.ch);
    const cache = createApiKeyCache(observed.ch, { ttlSeconds: 10, now: time.now });
    expect(await cache.lookup(key)).toBeDefined();

    observed.failing = true;
    time.advance(15);
    expect(await cache.lookup(key)).toBeDefined();
    time.advance(5); // the copy is now 20 s old
    await expect(cache.lookup(key)).rejects.toThrow(/cached copy is too old/);

    observed.failing = false;
    expect(await cache.lookup(key)).toBeDefined();
  });

  it('throws when the keys cannot be read at all', async () => {
    const observed = observedClickHouse(env.ch);
    observed.failing = true;
    const cache = createApiKeyCache(observed.ch, { ttlSeconds: 10 });
    await expect(cache.lookup(mintApiKey().key)).rejects.toThrow(/cannot be read/);
  });
});
