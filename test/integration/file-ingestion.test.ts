import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import { numberedNftTransfer } from '../fixtures/nft-transfers.ts';
import { ingestFiles, logicalRows, writeJsonLines, writeText } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const RAPHTORY_TRANSACTIONS = '../shared/data/raphtory-eth/transactions_03300000_03399999_small.csv';
const ETL_TOKEN_TRANSFERS =
  '../shared/data/ethereum-etl-fixtures/tests/resources/test_export_token_transfers_job/block_with_transfers/expected_token_transfers.csv';

const tx = (n: number, overrides: Record<string, unknown> = {}) => ({
  chainId: 1,
  hash: `0x${n.toString(16).padStart(64, '0')}`,
  blockNumber: 100 + n,
  blockTime: 1_700_000_000 + n,
  from: `0x${'a'.repeat(39)}${n % 10}`,
  to: `0x${'b'.repeat(39)}${n % 10}`,
  value: `${n}000000000000000000000`,
  ...overrides,
});

describe('file ingestion through the queues', () => {
  it('ingests all 19,999 rows of a real ethereum-etl transactions export', async () => {
    const summary = await ingestFiles(env, 'transactions', [RAPHTORY_TRANSACTIONS], {
      format: 'ethereum-etl',
      chunkRows: 5_000,
    });
    expect(summary).toMatchObject({ rowsRead: 19_999, accepted: 19_999, rejected: 0, chunks: 4, failedChunks: [] });
    expect(await logicalRows(env, 'transactions')).toBe(19_999);

    // The second data line of the file, stored exactly: lowercase, exact wei, UTC time.
    const [row] = await env.ch.query(
      sql`SELECT from_address, to_address, value, block_number, toUnixTimestamp(block_time) AS t
          FROM transactions FINAL
          WHERE hash = '0xe6e3adc26100e603097ad9e0dfe9b097f3a8be17c04d541805220a5f30b304ef'`,
      z.object({ from_address: z.string(), to_address: z.string(), value: z.string(), block_number: z.coerce.number(), t: z.coerce.number() }),
    );
    expect(row).toEqual({
      from_address: '0x593c97a298bacbdfcf1a820772bdb2fd564a7a1b',
      to_address: '0x08f054e89b7f2b921058dcde4e1ce746934394a6',
      value: '1000000000000000000',
      block_number: 3300400,
      t: 1488775107,
    });
  });

  it('leaves the logical row count unchanged when the same file is ingested twice', async () => {
    const before = await logicalRows(env, 'transactions');
    const again = await ingestFiles(env, 'transactions', [RAPHTORY_TRANSACTIONS], { format: 'ethereum-etl', chunkRows: 7_000 });
    expect(again.accepted).toBe(19_999);
    expect(await logicalRows(env, 'transactions')).toBe(before);
  });

  it('rejects malformed lines with their line number and reason, and ingests the rest', async () => {
    const file = await writeJsonLines('mixed.jsonl', [
      tx(1),
      '{"chainId": 1, "hash": ', // line 2: broken JSON
      tx(3, { from: '0x12345' }), // line 3: bad address
      { ...tx(4), blockNumber: undefined }, // line 4: missing field
      tx(5, { value: 12.5 }), // line 5: wrong type
      tx(6),
    ]);
    const summary = await ingestFiles(env, 'transactions', [file]);
    expect(summary.accepted).toBe(2);
    expect(summary.rejected).toBe(4);
    const rejects = await env.ch.query(
      sql`SELECT line, reason FROM ingest_rejects FINAL WHERE source = 'mixed.jsonl' ORDER BY line`,
      z.object({ line: z.coerce.number(), reason: z.string() }),
    );
    expect(rejects.map((r) => r.line)).toEqual([2, 3, 4, 5]);
    expect(rejects[0]!.reason).toMatch(/^not valid JSON/);
    expect(rejects[1]!.reason).toBe('from: must be a 0x-prefixed 20-byte hex address');
    expect(rejects[2]!.reason).toBe('blockNumber: missing');
    expect(rejects[3]!.reason).toMatch(/^value: must be/);
    const stored = await env.ch.query(
      sql`SELECT hash FROM transactions FINAL WHERE hash IN ${inList([tx(1).hash, tx(6).hash])} ORDER BY hash`,
      z.object({ hash: z.string() }),
    );
    expect(stored).toHaveLength(2);
  });

  it('reads CSV with a header in the canonical layout, and names the line of a short row', async () => {
    const header = 'chainId,hash,blockNumber,blockTime,from,to,value';
    const good = tx(7);
    const file = await writeText(
      'canonical.csv',
      [
        header,
        [good.chainId, good.hash, good.blockNumber, '2024-01-02T03:04:05Z', good.from.toUpperCase().replace('0X', '0x'), good.to, good.value].join(','),
        '1,0xabc',
      ].join('\n'),
    );
    const summary = await ingestFiles(env, 'transactions', [file]);
    expect(summary.accepted).toBe(1);
    expect(summary.rejectSamples).toEqual([{ source: 'canonical.csv', line: 3, reason: 'expected 7 columns as in the header, found 2' }]);
    const [row] = await env.ch.query(
      sql`SELECT from_address, toUnixTimestamp(block_time) AS t FROM transactions FINAL WHERE hash = ${good.hash}`,
      z.object({ from_address: z.string(), t: z.coerce.number() }),
    );
    expect(row).toEqual({ from_address: good.from, t: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000 });
  });

  it('keeps every good row of a CSV with a stray quote, a quote never closed and binary bytes: each bad line one reject with its number', async () => {
    const header = 'chainId,hash,blockNumber,blockTime,from,to,value';
    const line = (n: number) => {
      const t = tx(50_000 + n);
      return [t.chainId, t.hash, t.blockNumber, t.blockTime, t.from, t.to, t.value].join(',');
    };
    const lines = [header, ...Array.from({ length: 6_000 }, (_, i) => line(i))];
    lines[3_001] = `1,0x"stray,${lines[3_001]!.split(',').slice(2).join(',')}`; // line 3,002
    lines[4_000] = `"${lines[4_000]}`; // line 4,001: a quote never closed
    lines[5_000] = '\u0000\u0001,\u00ff'; // line 5,001: binary bytes
    const file = await writeText('malformed.csv', `${lines.join('\n')}\n`);
    const summary = await ingestFiles(env, 'transactions', [file], { chunkRows: 1_000 });
    expect(summary.failedChunks).toEqual([]);
    expect(summary.accepted).toBe(5_997);
    // Chunks finish in any order: the samples are compared by line.
    const samples = [...summary.rejectSamples].sort((a, b) => a.line - b.line);
    expect(samples.map((r) => [r.line, r.reason.split(':')[0]])).toEqual([
      [3_002, 'not valid CSV'],
      [4_001, 'not valid CSV'],
      [5_001, 'expected 7 columns as in the header, found 2'],
    ]);
    expect(samples[1]!.reason).toBe('not valid CSV: a quote opened at line 4001 is never closed');
  });

  it('ingests ethereum-etl token transfers with the chain id given on the command line', async () => {
    const summary = await ingestFiles(env, 'token-transfers', [ETL_TOKEN_TRANSFERS], { format: 'ethereum-etl', chainId: 5 });
    expect(summary).toMatchObject({ accepted: 2, rejected: 0 });
    const rows = await env.ch.query(
      sql`SELECT chain_id, value, log_index FROM token_transfers FINAL ORDER BY log_index`,
      z.object({ chain_id: z.coerce.number(), value: z.string(), log_index: z.coerce.number() }),
    );
    expect(rows).toEqual([
      { chain_id: 5, value: '100000', log_index: 0 },
      { chain_id: 5, value: '200000', log_index: 1 },
    ]);
  });
});

describe('derived and stateful tables', () => {
  const contract = '0x' + 'c'.repeat(40);
  const zero = '0x' + '0'.repeat(40);
  const alice = '0x' + '1'.repeat(40);
  const bob = '0x' + '2'.repeat(40);
  const transfer = (i: number, tokenId: string, from: string, to: string, standard: 'ERC-721' | 'ERC-1155' = 'ERC-721', amount = '1') =>
    numberedNftTransfer(i, { contract, tokenId, from, to, standard, amount });

  it('derives NFT holdings from mints, transfers and burns', async () => {
    const file = await writeJsonLines('nft.jsonl', [
      transfer(1, '1', zero, alice), // alice mints #1
      transfer(2, '2', zero, alice), // alice mints #2
      transfer(3, '1', alice, bob), // alice -> bob #1
      transfer(4, '2', alice, zero), // alice burns #2
      transfer(5, '7', zero, alice, 'ERC-1155', '10'),
      transfer(6, '7', alice, bob, 'ERC-1155', '3'),
    ]);
    expect((await ingestFiles(env, 'nft-transfers', [file])).accepted).toBe(6);
    const holdings = await env.ch.query(
      sql`SELECT token_id, holder, balance FROM nft_holdings WHERE contract = ${contract} ORDER BY token_id, holder`,
      z.object({ token_id: z.string(), holder: z.string(), balance: z.coerce.number() }),
    );
    expect(holdings).toEqual([
      { token_id: '1', holder: bob, balance: 1 },
      { token_id: '7', holder: alice, balance: 7 },
      { token_id: '7', holder: bob, balance: 3 },
    ]);
  });

  it('answers whom a profile follows now, after unfollows and follows again', async () => {
    const follow = (followee: string, followedAt: string, unfollowedAt?: string) => ({
      followerProfileId: 'p_me',
      followeeProfileId: followee,
      followedAt,
      ...(unfollowedAt ? { unfollowedAt } : {}),
    });
    await ingestFiles(env, 'follows', [
      await writeJsonLines('follows-1.jsonl', [
        follow('p_a', '2024-01-01T00:00:00Z'),
        follow('p_b', '2024-01-01T00:00:00Z'),
        follow('p_c', '2024-01-01T00:00:00Z'),
      ]),
    ]);
    await ingestFiles(env, 'follows', [
      await writeJsonLines('follows-2.jsonl', [
        follow('p_b', '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'), // unfollowed b
        follow('p_c', '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'),
      ]),
    ]);
    await ingestFiles(env, 'follows', [
      await writeJsonLines('follows-3.jsonl', [
        follow('p_c', '2024-03-01T00:00:00Z', '2024-02-01T00:00:00Z'), // followed c again
        follow('p_a', '2023-06-01T00:00:00Z', '2023-07-01T00:00:00Z'), // an older event changes nothing
      ]),
    ]);
    const following = await env.ch.query(
      sql`SELECT followee_profile_id AS id FROM follows FINAL WHERE follower_profile_id = 'p_me' AND active = 1 ORDER BY id`,
      z.object({ id: z.string() }),
    );
    expect(following.map((f) => f.id)).toEqual(['p_a', 'p_c']);
  });
});
