/**
 * A chain worker killed in the middle of a block range (SIGKILL: no shutdown, no cleanup)
 * and another started: the range is written again whole, leaving exactly the chain's rows
 * in the raw tables (counted without FINAL: no gap, no duplicate).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Address } from 'viem';
import { z } from 'zod';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../../shared/config.ts';
import { runBackfill } from '../../pipeline/chain/backfill-run.ts';
import { chainSource } from '../../pipeline/chain/chain-source.ts';
import { chainSettings } from '../support/chain-harness.ts';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { devChain } from '../support/contracts.ts';
import { startHardhatNode, type HardhatNode } from '../support/hardhat-node.ts';
import { startMetadataServer, type MetadataServer } from '../support/metadata-server.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let node: HardhatNode;
let meta: MetadataServer;
let config: Config;
let childEnv: Record<string, string>;
let head = 0;

const count = async (table: string) =>
  (await env.ch.query(sql`SELECT count() AS n FROM ${identifier(table)} WHERE chain_id = 31337`, z.object({ n: z.coerce.number() })))[0]!.n;

beforeAll(async () => {
  [node, meta] = await Promise.all([startHardhatNode(), startMetadataServer()]);
  meta.setSlowMs(1_500);
  // A short lock, so that the killed worker's job is taken over soon; not 1 s, which a live
  // worker on a loaded 2-core machine once failed to renew 4 times in a row ("job stalled
  // more than allowable limit").
  childEnv = { ...env.env, ...chainSettings(node, { blocksPerJob: 1_000 }), METADATA_TIMEOUT_MS: '10000', INGEST_LOCK_MS: '5000' };
  config = parseConfig(childEnv);
  const chain = await devChain(node.url);
  const a = chain.accounts;
  const sbt: Address = await chain.deploy('TestSoulbound', ['Slow Badges', 'SLOW']);
  for (let i = 0; i < 20; i++) await chain.transferEth(a[i % 10]!, a[10 + (i % 10)]!, parseEther('0.01'));
  for (let i = 1; i <= 3; i++) await chain.send('TestSoulbound', sbt, 'mint', [a[i], BigInt(i), `${meta.url}/slow/${i}.json`, '']);
  head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
}, 60_000);

afterAll(async () => {
  await Promise.all([node?.stop(), meta?.close()]);
});

describe('killing the chain worker mid-range', () => {
  it('leaves exact row counts once another worker has finished the range', async () => {
    const backfill = runBackfill(config, chainSource(config, 31337), 0, head);
    const first = spawnSoulgraph(['workers'], childEnv);
    // Transactions are in, the SBT mints wait on their slow metadata host: the range is half written.
    await waitFor(async () => (await count('transactions')) > 0, 30_000, 'the first worker to write transactions');
    first.kill('SIGKILL');
    await exitOf(first);
    expect(await count('sbt_mints')).toBe(0);
    expect(await count('chain_blocks')).toBe(0);

    const second = spawnSoulgraph(['workers'], childEnv);
    try {
      const summary = await backfill;
      expect(summary.failed).toEqual([]);
    } finally {
      second.kill('SIGTERM');
      await exitOf(second);
    }
    expect(await count('transactions')).toBe(head);
    expect(await count('nft_transfers')).toBe(3);
    expect(await count('sbt_mints')).toBe(3);
    expect(await count('sbt_mint_sources')).toBe(3);
    expect(await count('chain_blocks')).toBe(head + 1);
    expect(await count('address_labels')).toBe(1);
    const names = await env.ch.query(sql`SELECT sbt_name FROM sbt_mints ORDER BY token_id`, z.object({ sbt_name: z.string() }));
    expect(names.map((n) => n.sbt_name)).toEqual(['Slow badge 1', 'Slow badge 2', 'Slow badge 3']);
  });
});
