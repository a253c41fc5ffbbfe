/**
 * Reorgs and follow mode against a real node: evm_snapshot / evm_revert replace blocks
 * that were already ingested; the next follow step finds the orphaned blocks, deletes
 * their rows, and ingests the replacement chain. Follow never goes above head - confirmations.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Address } from 'viem';
import { z } from 'zod';
import { identifier, sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { redisConnection } from '../../shared/redis.ts';
import { createChainCaches } from '../../pipeline/chain/block-range.ts';
import { chainSource } from '../../pipeline/chain/chain-source.ts';
import { readCheckpoint } from '../../pipeline/chain/checkpoints.ts';
import { followChain, type FollowDeps } from '../../pipeline/chain/follow.ts';
import { chainSettings } from '../support/chain-harness.ts';
import { exitOf, spawnSoulgraph, waitFor } from '../support/child-process.ts';
import { devChain } from '../support/contracts.ts';
import { startHardhatNode, type HardhatNode } from '../support/hardhat-node.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let node: HardhatNode;
let chain: Awaited<ReturnType<typeof devChain>>;
let redis: Redis;
let deps: FollowDeps;
let nft: Address;
let sbt: Address;

const follow = (confirmations = 0) => {
  const config = parseConfig({ ...env.env, ...chainSettings(node, { confirmations, blocksPerJob: 3 }) });
  return followChain({ ...deps, config }, chainSource(config, 31337), { jobId: 'test-follow', fromBlock: 0 });
};
const count = async (statement: ReturnType<typeof sql>) => (await env.ch.query(statement, z.object({ n: z.coerce.number() })))[0]!.n;
const tokenOwners = async () =>
  (await env.ch.query(sql`SELECT token_id, to_address FROM nft_transfers WHERE chain_id = 31337 ORDER BY block_number, token_id`, z.object({ token_id: z.string(), to_address: z.string() }))).map(
    (r) => `${r.token_id}->${r.to_address.slice(0, 6)}`,
  );

beforeAll(async () => {
  node = await startHardhatNode();
  chain = await devChain(node.url);
  redis = new Redis(redisConnection(env.config, 'worker'));
  const logger = createLogger(env.config, 'test');
  deps = { ch: env.ch, config: env.config, logger, redis, caches: createChainCaches(env.ch, env.config, logger) };
  nft = await chain.deploy('TestNft', ['Reorg NFT', 'RNFT']);
  await chain.send('TestNft', nft, 'mint', [chain.accounts[1], 1n]);
  sbt = await chain.deploy('TestSoulbound', ['Reorg Badges', 'RB']);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await node?.stop();
});

describe('following a chain', () => {
  it('never ingests above head minus the confirmations', async () => {
    await node.rpc('hardhat_mine', ['0x4']);
    const head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    const result = await follow(3);
    expect(result.to).toBe(head - 3);
    expect(await count(sql`SELECT max(number) AS n FROM chain_blocks WHERE chain_id = 31337`)).toBe(head - 3);
    expect((await readCheckpoint(env.ch, 31337))?.blockNumber).toBe(head - 3);
  });

  it('continues from its checkpoint up to the head', async () => {
    const head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    const result = await follow(0);
    expect(result.from).toBe(head - 3 + 1);
    expect(result.to).toBe(head);
    expect(await count(sql`SELECT count() AS n FROM chain_blocks WHERE chain_id = 31337`)).toBe(head + 1);
  });

  it('drops the rows of orphaned blocks and ingests the replacement chain', async () => {
    const [a0, a1, a2] = chain.accounts.map((a) => a.toLowerCase());
    const snapshot = await node.rpc<string>('evm_snapshot');
    const forkBase = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    await chain.send('TestNft', nft, 'mint', [chain.accounts[2], 50n]);
    await chain.transferEth(chain.accounts[3]!, chain.accounts[4]!, parseEther('2'));
    await chain.send('TestSoulbound', sbt, 'mint', [chain.accounts[2], 5n, '', 'orphaned statement']);
    await follow(0);
    expect(await tokenOwners()).toEqual([`1->${a1!.slice(0, 6)}`, `50->${a2!.slice(0, 6)}`, `5->${a2!.slice(0, 6)}`]);
    const orphanTxs = await count(sql`SELECT count() AS n FROM transactions WHERE chain_id = 31337 AND block_number > ${forkBase}`);
    expect(orphanTxs).toBe(3);
    const sbtRows = () => Promise.all(['sbt_mints', 'sbt_mints_by_owner', 'sbt_mint_sources'].map((t) => count(sql`SELECT count() AS n FROM ${identifier(t)} WHERE chain_id = 31337`)));
    expect(await sbtRows()).toEqual([1, 1, 1]);

    // The chain is replaced from forkBase + 1 by a longer one with other transactions.
    expect(await node.rpc('evm_revert', [snapshot])).toBe(true);
    await chain.send('TestNft', nft, 'mint', [chain.accounts[0], 60n]);
    await node.rpc('hardhat_mine', ['0x2']);
    const result = await follow(0);

    expect(result.rolledBack).toBe(3);
    expect(await sbtRows()).toEqual([0, 0, 0]);
    expect(await tokenOwners()).toEqual([`1->${a1!.slice(0, 6)}`, `60->${a0!.slice(0, 6)}`]);
    const txs = await env.ch.query(sql`SELECT block_number, from_address FROM transactions WHERE chain_id = 31337 AND block_number > ${forkBase} ORDER BY block_number`, z.object({ block_number: z.coerce.number(), from_address: z.string() }));
    expect(txs).toEqual([{ block_number: forkBase + 1, from_address: a0 }]);
    // Every stored block is the node's block of that number now.
    const head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    const stored = await env.ch.query(sql`SELECT number, hash FROM chain_blocks WHERE chain_id = 31337 AND number > ${forkBase - 2} ORDER BY number`, z.object({ number: z.coerce.number(), hash: z.string() }));
    expect(stored.map((b) => b.number)).toEqual(Array.from({ length: head - forkBase + 2 }, (_, i) => forkBase - 1 + i));
    for (const b of stored) expect(b.hash).toBe((await chain.publicClient.getBlock({ blockNumber: BigInt(b.number) })).hash);
    expect(await readCheckpoint(env.ch, 31337)).toEqual({ blockNumber: head, blockHash: stored.at(-1)!.hash });
  });

  it('lets only one follower work on a chain at a time', async () => {
    const [first, second] = await Promise.all([follow(0), follow(0)]);
    expect([first.skipped, second.skipped].sort()).toEqual([false, true]);
  });

  it('soulgraph chain follow keeps up with new blocks from the checkpoint until Ctrl-C', async () => {
    const child = spawnSoulgraph(['chain', 'follow', '--chain', '31337', '--poll-ms', '200'], { ...env.env, ...chainSettings(node, { blocksPerJob: 3 }) });
    try {
      const atHead = async () => (await readCheckpoint(env.ch, 31337))?.blockNumber === Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
      await waitFor(atHead, 20_000, 'the follower to reach the head');
      await node.rpc('hardhat_mine', ['0x4']);
      await waitFor(atHead, 20_000, 'the follower to ingest the new blocks').catch((e: Error) => { throw new Error(`${e.message}: ${child.output()}`); });
    } finally {
      child.kill('SIGINT');
    }
    const { code } = await exitOf(child);
    expect(code, child.output()).toBe(130);
    expect(child.output()).toContain('following Hardhat (chain 31337) at head - 0');
    const head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    expect(await count(sql`SELECT count() AS n FROM chain_blocks FINAL WHERE chain_id = 31337`)).toBe(head + 1);
  });
});
