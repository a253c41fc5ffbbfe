/**
 * A newcomer's own transfers are found by address in transfers_by_address (migration 055),
 * which ingestion keeps in step with the three tables of transfers through materialized views:
 * the keys it gives are those of the rows from or to the addresses, and a key whose row a
 * reorg deleted stays there and finds nothing.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deleteBlockSpan } from '../../pipeline/chain/reorg.ts';
import { transferKeysSql, writtenOutTransfers, type TransferTable } from '../../pipeline/materialize/load/own-transfers.ts';
import { holdingsOfSql } from '../../pipeline/materialize/load/own-facts-sql.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { numberedNftTransfer } from '../fixtures/nft-transfers.ts';
import { ingestRecords } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

const CHAIN = 7_055;
const ZERO = '0x0000000000000000000000000000000000000000';
const address = (n: number) => `0x${(0x5500 + n).toString(16).padStart(40, '0')}`;
const hash = (n: number) => `0x${(0x5500 + n).toString(16).padStart(64, '0')}`;
const [ann, ben, cat] = [1, 2, 3].map(address) as [string, string, string];
const TOKEN = address(50);
const FROGS = address(60);

const keyRow = z.record(z.string(), z.union([z.string(), z.number()]));
const keysOf = async (table: TransferTable, addresses: string[]) =>
  (await env.ch.query(transferKeysSql(table, addresses), keyRow)).map((row) => Object.values(row).map(String).join(' ')).sort();

describe('transfers_by_address', () => {
  it('gives the keys of each table\'s transfers from or to the addresses, once each, and no others', async () => {
    const transaction = (n: number, from: string, to: string) => ({ chainId: CHAIN, hash: hash(n), blockNumber: n, blockTime: 1_700_000_000 + n, from, to, value: '1' });
    await ingestRecords(env, {
      // ann pays ben; ann pays herself; ben pays cat.
      transactions: [transaction(1, ann, ben), transaction(2, ann, ann), transaction(3, ben, cat)],
      'token-transfers': [
        { chainId: CHAIN, contract: TOKEN, from: cat, to: ann, value: '5', txHash: hash(4), logIndex: 0, blockNumber: 4 },
        { chainId: CHAIN, contract: TOKEN, from: ben, to: cat, value: '5', txHash: hash(4), logIndex: 1, blockNumber: 4 },
      ],
      'nft-transfers': [{ ...numberedNftTransfer(5, { contract: FROGS, tokenId: '9', from: ZERO, to: ben }), chainId: CHAIN, txHash: hash(5) }],
    });
    // The same transaction again (a re-ingested file): still one key.
    await ingestRecords(env, { transactions: [transaction(1, ann, ben)] });

    expect(await keysOf('transactions', [ann])).toEqual([`${CHAIN} ${hash(1)}`, `${CHAIN} ${hash(2)}`]);
    expect(await keysOf('transactions', [ann, cat])).toEqual([`${CHAIN} ${hash(1)}`, `${CHAIN} ${hash(2)}`, `${CHAIN} ${hash(3)}`]);
    expect(await keysOf('token_transfers', [ann])).toEqual([`${CHAIN} ${hash(4)} 0`]);
    expect(await keysOf('token_transfers', [cat])).toEqual([`${CHAIN} ${hash(4)} 0`, `${CHAIN} ${hash(4)} 1`]);
    expect(await keysOf('nft_transfers', [ben])).toEqual([`${CHAIN} ${hash(5)} 5 9`]);
    expect(await keysOf('nft_transfers', [ann])).toEqual([]);
    // Nobody's wallet: the zero address's end of a mint gets no key.
    expect(await keysOf('nft_transfers', [ZERO])).toEqual([]);
  });

  it('finds an address\'s keys in a range of the index, not by reading all of it', async () => {
    const chain = CHAIN + 2;
    // 40,000 transactions between 4,000 other addresses, and two of ann's.
    await env.ch.command(sql`
      INSERT INTO transactions (chain_id, hash, block_number, block_time, from_address, to_address, value, ingested_at)
      SELECT ${chain}, concat('0x', lower(hex(MD5(toString(number))))), number, now(),
             concat('0xf', toString(number % 4000)), concat('0xe', toString(number % 3999)), '1', now()
      FROM system.numbers LIMIT 40000`);
    await env.ch.command(sql`
      INSERT INTO transactions (chain_id, hash, block_number, block_time, from_address, to_address, value, ingested_at)
      VALUES (${chain}, ${hash(90)}, 1, now(), ${ann}, ${ben}, '1', now()), (${chain}, ${hash(91)}, 2, now(), ${cat}, ${ann}, '1', now())`);
    // Fewer rows than one granule of the whole table each would read if the index were scanned.
    const rows = await env.ch.query(transferKeysSql('transactions', [ann]), keyRow, { max_rows_to_read: '5000' });
    expect(rows.filter((row) => row.chain_id === chain).map((row) => row.hash).sort()).toEqual([hash(90), hash(91)]);
  });

  it('keeps the key of a transfer a reorg deleted, which then finds nothing', async () => {
    const chain = CHAIN + 1;
    const mint = (n: number, tokenId: string) => ({ ...numberedNftTransfer(n, { contract: FROGS, tokenId, from: ZERO, to: cat }), chainId: chain });
    // cat is minted frog 1 in block 20 and frog 2 in block 30; a reorg takes block 30 back.
    await ingestRecords(env, { 'nft-transfers': [mint(10, '1'), mint(20, '2')] });
    await deleteBlockSpan(env.ch, chain, { from: 30 });

    const indexed = await env.ch.query(sql`SELECT token_id FROM transfers_by_address WHERE address = ${cat} AND chain_id = ${chain} ORDER BY token_id`, z.object({ token_id: z.string() }));
    expect(indexed.map((r) => r.token_id)).toEqual(['1', '2']);
    const held = await env.ch.query(
      sql`SELECT token_id FROM (${holdingsOfSql(await writtenOutTransfers(env.ch, [cat], {}))}) WHERE chain_id = ${chain}`,
      z.object({ token_id: z.string() }),
    );
    expect(held.map((r) => r.token_id)).toEqual(['1']);
  });
});
