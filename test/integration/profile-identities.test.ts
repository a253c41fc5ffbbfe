import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { ingestFiles, writeJsonLines } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const profile = (id: string, fields: Record<string, unknown>) => ({ profileId: id, name: id, ...fields });

async function ownerOf(kind: 'address' | 'social' | 'game', identifier: string): Promise<string | undefined> {
  const rows = await env.ch.query(
    sql`SELECT profile_id FROM profile_identities FINAL
        WHERE kind = ${kind} AND identifier = ${identifier} AND linked = 1`,
    z.object({ profile_id: z.string() }),
  );
  return rows[0]?.profile_id;
}

async function rejectsOf(source: string) {
  return env.ch.query(
    sql`SELECT line, reason FROM ingest_rejects FINAL WHERE source = ${source} ORDER BY line`,
    z.object({ line: z.coerce.number(), reason: z.string() }),
  );
}

describe('profile identities', () => {
  it('finds a profile by address in any case, by handle in any case, and by game id', async () => {
    await ingestFiles(env, 'profiles', [
      await writeJsonLines('alice.jsonl', [
        profile('p_alice', {
          addresses: [addr(0xa1).toUpperCase().replace('0X', '0x'), addr(0xa2)],
          socialUsername: '@Alice_ETH',
          gamePlatformId: 'steam:1',
          updatedAt: '2024-01-01T00:00:00Z',
        }),
      ]),
    ]);
    expect(await ownerOf('address', addr(0xa1))).toBe('p_alice');
    expect(await ownerOf('address', addr(0xa2))).toBe('p_alice');
    expect(await ownerOf('social', 'alice_eth')).toBe('p_alice');
    expect(await ownerOf('game', 'steam:1')).toBe('p_alice');
  });

  it('rejects a profile that would take an address, handle or game id of another profile', async () => {
    const source = 'conflicts.jsonl';
    const summary = await ingestFiles(env, 'profiles', [
      await writeJsonLines(source, [
        profile('p_bob', { addresses: [addr(0xb1), addr(0xa1)], updatedAt: '2024-01-02T00:00:00Z' }),
        profile('p_carol', { socialUsername: 'ALICE_eth', updatedAt: '2024-01-02T00:00:00Z' }),
        profile('p_dave', { addresses: [addr(0xd1)], updatedAt: '2024-01-02T00:00:00Z' }),
        profile('p_erin', { addresses: [addr(0xd1)], updatedAt: '2024-01-02T00:00:00Z' }), // same chunk as dave
      ]),
    ]);
    expect(summary).toMatchObject({ accepted: 1, rejected: 3 });
    expect(await rejectsOf(source)).toEqual([
      { line: 1, reason: `address ${addr(0xa1)} already belongs to profile p_alice` },
      { line: 2, reason: 'social handle alice_eth already belongs to profile p_alice' },
      { line: 4, reason: `address ${addr(0xd1)} already belongs to profile p_dave` },
    ]);
    // Nothing of a rejected profile is stored or linked.
    expect(await ownerOf('address', addr(0xb1))).toBeUndefined();
    expect(await ownerOf('address', addr(0xd1))).toBe('p_dave');
  });

  it('unlinks what a profile drops, so another profile can claim it', async () => {
    await ingestFiles(env, 'profiles', [
      await writeJsonLines('alice-v2.jsonl', [
        profile('p_alice', { addresses: [addr(0xa1)], socialUsername: 'alice_new', updatedAt: '2024-02-01T00:00:00Z' }),
      ]),
    ]);
    expect(await ownerOf('social', 'alice_eth')).toBeUndefined();
    expect(await ownerOf('address', addr(0xa2))).toBeUndefined();
    expect(await ownerOf('game', 'steam:1')).toBeUndefined();

    const summary = await ingestFiles(env, 'profiles', [
      await writeJsonLines('frank.jsonl', [
        profile('p_frank', { addresses: [addr(0xa2)], socialUsername: 'alice_eth', updatedAt: '2024-02-02T00:00:00Z' }),
      ]),
    ]);
    expect(summary.rejected).toBe(0);
    expect(await ownerOf('social', 'alice_eth')).toBe('p_frank');
    expect(await ownerOf('address', addr(0xa2))).toBe('p_frank');
  });

  it('keeps the newest state when an older profile record arrives later', async () => {
    await ingestFiles(env, 'profiles', [
      await writeJsonLines('alice-old.jsonl', [
        profile('p_alice', { addresses: [addr(0xa1), addr(0xa9)], socialUsername: 'alice_old', updatedAt: '2023-12-01T00:00:00Z' }),
      ]),
    ]);
    const [row] = await env.ch.query(
      sql`SELECT social_username, addresses FROM profiles FINAL WHERE profile_id = 'p_alice'`,
      z.object({ social_username: z.string(), addresses: z.array(z.string()) }),
    );
    expect(row).toEqual({ social_username: 'alice_new', addresses: [addr(0xa1)] });
    expect(await ownerOf('address', addr(0xa9))).toBeUndefined();
  });
});
