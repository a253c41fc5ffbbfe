/**
 * A list computed on demand reads its caller's NFTs from the caller's own transfers alone
 * (load/own-facts-sql.ts holdingsOfSql), not from the view nft_holdings, which sums every transfer
 * ever made. The two must agree: a holder's balance of a token is the sum of the transfers
 * to and from it, whatever else moved. Either way the caller's transfers are found
 * (own-transfers.ts): by subqueries as the statement runs, or by their keys written out.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { holdingsOfSql } from '../../pipeline/materialize/load/own-facts-sql.ts';
import { ownTransfersSql, writtenOutTransfers, type OwnTransfers } from '../../pipeline/materialize/load/own-transfers.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import { numberedNftTransfer } from '../fixtures/nft-transfers.ts';
import { ingestRecords } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

const ZERO = '0x0000000000000000000000000000000000000000';
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const [ann, ben, cat, dan] = [1, 2, 3, 4].map(address) as [string, string, string, string];
const FROGS = address(100);
const SWORDS = address(200);

let n = 0;
const transfer = (contract: string, tokenId: string, from: string, to: string, amount: string, standard: 'ERC-721' | 'ERC-1155') =>
  numberedNftTransfer(n++, { contract, tokenId, from, to, amount, standard });

const holdingRow = z.object({ chain_id: z.coerce.number(), contract: z.string(), token_id: z.string(), holder: z.string(), balance: z.coerce.number() });
const ordered = (rows: z.infer<typeof holdingRow>[]) => [...rows].sort((a, b) => `${a.contract}${a.token_id}${a.holder}`.localeCompare(`${b.contract}${b.token_id}${b.holder}`));

const FINDINGS: [string, (addresses: string[]) => Promise<OwnTransfers>][] = [
  ['found by subqueries', async (addresses) => ownTransfersSql(addresses)],
  ['found by their keys written out', (addresses) => writtenOutTransfers(env.ch, addresses, {})],
];

describe('the NFTs a few addresses hold, from their own transfers alone', () => {
  it('are what nft_holdings says they hold: sold, bought, partly given away, and a transfer ingested twice', async () => {
    const frogs = [
      transfer(FROGS, '1', ZERO, ann, '1', 'ERC-721'),
      transfer(FROGS, '1', ann, ben, '1', 'ERC-721'), // ann sold frog 1 to ben
      transfer(FROGS, '2', ZERO, ann, '1', 'ERC-721'),
      transfer(FROGS, '3', ZERO, cat, '1', 'ERC-721'), // nothing to do with ann or ben
    ];
    const swords = [
      transfer(SWORDS, '7', ZERO, ben, '5', 'ERC-1155'),
      transfer(SWORDS, '7', ben, dan, '2', 'ERC-1155'), // ben keeps 3
      transfer(SWORDS, '8', ZERO, dan, '4', 'ERC-1155'),
      transfer(SWORDS, '8', dan, cat, '4', 'ERC-1155'), // dan gave all of 8 away
    ];
    await ingestRecords(env, { 'nft-transfers': [...frogs, ...swords] });
    // The same transfer again (a re-ingested file): FINAL keeps one version.
    await ingestRecords(env, { 'nft-transfers': [frogs[1]!] });

    for (const [found, find] of FINDINGS) {
      for (const addresses of [[ann], [ben], [dan], [ann, ben], [cat, dan], [address(999)]]) {
        const own = await env.ch.query(sql`SELECT chain_id, contract, token_id, holder, balance FROM (${holdingsOfSql(await find(addresses))})`, holdingRow);
        const viewed = await env.ch.query(
          sql`SELECT chain_id, contract, token_id, holder, balance FROM nft_holdings WHERE holder IN ${inList(addresses)}`,
          holdingRow,
        );
        expect(ordered(own), `${found}: ${addresses.join(',')}`).toEqual(ordered(viewed));
      }
      // Worked by hand: ann holds frog 2 only; ben frog 1 and 3 of sword 7; dan 2 of sword 7.
      const held = async (who: string) =>
        ordered(await env.ch.query(sql`SELECT chain_id, contract, token_id, holder, balance FROM (${holdingsOfSql(await find([who]))})`, holdingRow));
      expect(await held(ann), found).toEqual([{ chain_id: 1, contract: FROGS, token_id: '2', holder: ann, balance: 1 }]);
      expect(await held(ben), found).toEqual([
        { chain_id: 1, contract: FROGS, token_id: '1', holder: ben, balance: 1 },
        { chain_id: 1, contract: SWORDS, token_id: '7', holder: ben, balance: 3 },
      ]);
      expect(await held(dan), found).toEqual([{ chain_id: 1, contract: SWORDS, token_id: '7', holder: dan, balance: 2 }]);
    }
  });
});
