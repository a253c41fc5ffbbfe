/**
 * Marks transaction recipients that are contracts, so that the recommender can drop them
 * (address_labels kind 'contract'). Each address is asked once per chain with eth_getCode:
 * the answer (contract or not) is kept in chain_address_codes and in a bounded in-memory
 * cache, and later ranges only ask about addresses never seen. An address the RPC could
 * not answer for stays unasked, and a later range asks again. The label is written before
 * the answer, and not written again when already there, so a process killed between the
 * two leaves neither a contract unlabelled nor a label twice.
 */
import type { PublicClient } from 'viem';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { inList, sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Logger } from '../../shared/logger.ts';
import { mapBounded } from './pool.ts';

const CACHE_LIMIT = 200_000;

export class ContractMarks {
  private readonly known = new Map<string, boolean>();
  private readonly asking = new Set<string>();

  constructor(
    private readonly ch: ClickHouse,
    private readonly logger: Logger,
  ) {}

  /** Checks the addresses not known yet; returns how many new contracts were marked. */
  async mark(client: PublicClient, chainId: number, addresses: Iterable<string>, concurrency: number): Promise<number> {
    const unknown = [...new Set(addresses)].filter((a) => a !== '' && !this.known.has(`${chainId}:${a}`) && !this.asking.has(`${chainId}:${a}`));
    if (unknown.length === 0) return 0;
    // Reserved at once, so that two jobs of this process never ask about the same address.
    for (const a of unknown) this.asking.add(`${chainId}:${a}`);
    try {
      return await this.markUnknown(client, chainId, unknown, concurrency);
    } finally {
      for (const a of unknown) this.asking.delete(`${chainId}:${a}`);
    }
  }

  private async markUnknown(client: PublicClient, chainId: number, unknown: string[], concurrency: number): Promise<number> {
    const stored = new Set<string>();
    for (let i = 0; i < unknown.length; i += 1_000) {
      const slice = unknown.slice(i, i + 1_000);
      const rows = await this.ch.query(
        sql`SELECT address, is_contract FROM chain_address_codes FINAL WHERE chain_id = ${chainId} AND address IN ${inList(slice)}`,
        z.object({ address: z.string(), is_contract: z.coerce.number() }),
      );
      for (const r of rows) {
        stored.add(r.address);
        this.remember(`${chainId}:${r.address}`, r.is_contract === 1);
      }
    }
    const ask = unknown.filter((a) => !stored.has(a));
    const failures: string[] = [];
    const answers = await mapBounded(ask, concurrency, async (address) => {
      try {
        const code = await client.request({ method: 'eth_getCode', params: [address as `0x${string}`, 'latest'] });
        return { address, isContract: typeof code === 'string' && code !== '0x' && code !== '0x0' };
      } catch (error) {
        failures.push((error as Error).message.split('\n')[0]!);
        return undefined;
      }
    });
    if (failures.length > 0) {
      this.logger.warn({ chainId, addresses: failures.length, err: failures[0] }, 'eth_getCode failed; those addresses are asked again when seen again');
    }
    const now = Math.floor(Date.now() / 1000);
    const answered = answers.filter((a): a is { address: string; isContract: boolean } => a !== undefined);
    const found = answered.filter((a) => a.isContract);
    // A process killed between the two inserts below labelled some of these already: not twice.
    const labelled =
      found.length === 0
        ? new Set<string>()
        : new Set(
            (
              await this.ch.query(
                sql`SELECT DISTINCT address FROM address_labels WHERE chain_id = ${chainId} AND kind = 'contract' AND address IN ${inList(found.map((c) => c.address))}`,
                z.object({ address: z.string() }),
              )
            ).map((r) => r.address),
          );
    const contracts = found.filter((c) => !labelled.has(c.address));
    await this.ch.insert(
      'address_labels',
      contracts.map((c) => ({ chain_id: chainId, address: c.address, kind: 'contract', name: '', updated_at: now, ingested_at: now })),
    );
    await this.ch.insert(
      'chain_address_codes',
      answered.map((a) => ({ chain_id: chainId, address: a.address, is_contract: a.isContract ? 1 : 0, checked_at: now })),
    );
    for (const a of answered) this.remember(`${chainId}:${a.address}`, a.isContract);
    return found.length;
  }

  private remember(key: string, isContract: boolean): void {
    if (this.known.size >= CACHE_LIMIT) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, isContract);
  }
}
