/**
 * Names and symbols of NFT collections, read once per contract with eth_call (`name()`,
 * `symbol()`) into nft_collections, which is also the cache: a contract with a row there
 * (from an earlier range, or from file ingestion) is not asked again. A contract without
 * these functions (many ERC-1155) gets empty strings.
 */
import { parseAbi, type Address, type PublicClient } from 'viem';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import { mapBounded } from './pool.ts';

const ABI = parseAbi(['function name() view returns (string)', 'function symbol() view returns (string)']);

export class CollectionNames {
  private readonly known = new Set<string>();

  constructor(private readonly ch: ClickHouse) {}

  async describe(client: PublicClient, chainId: number, contracts: Iterable<string>, concurrency: number): Promise<number> {
    const unknown = [...new Set(contracts)].filter((c) => !this.known.has(`${chainId}:${c}`));
    if (unknown.length === 0) return 0;
    // Taken at once, so that two jobs of this process never ask for the same contract; given back on failure.
    for (const c of unknown) this.known.add(`${chainId}:${c}`);
    try {
      return await this.describeUnknown(client, chainId, unknown, concurrency);
    } catch (error) {
      for (const c of unknown) this.known.delete(`${chainId}:${c}`);
      throw error;
    }
  }

  private async describeUnknown(client: PublicClient, chainId: number, unknown: string[], concurrency: number): Promise<number> {
    const stored = new Set(
      (
        await this.ch.query(
          sql`SELECT DISTINCT contract FROM nft_collections WHERE chain_id = ${chainId} AND contract IN ${inList(unknown)}`,
          z.object({ contract: z.string() }),
        )
      ).map((r) => r.contract),
    );
    const ask = unknown.filter((c) => !stored.has(c));
    const read = (address: string, functionName: 'name' | 'symbol') =>
      client.readContract({ address: address as Address, abi: ABI, functionName }).then(
        (v) => v.replace(/\0/g, '').slice(0, 256),
        () => '',
      );
    const rows = await mapBounded(ask, concurrency, async (contract) => {
      const [name, symbol] = await Promise.all([read(contract, 'name'), read(contract, 'symbol')]);
      return { contract, name, symbol };
    });
    const now = Math.floor(Date.now() / 1000);
    await this.ch.insert(
      'nft_collections',
      rows.map((r) => ({ chain_id: chainId, contract: r.contract, name: r.name, symbol: r.symbol, updated_at: now, ingested_at: now })),
    );
    return rows.length;
  }
}
