/**
 * On-chain ingestion against a real EVM (Hardhat 2) and real OpenZeppelin contracts:
 * deploy, mint, transfer, burn, then backfill the chain through the chain queue and find
 * exactly the rows the chain holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Address } from 'viem';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { runBackfill } from '../../pipeline/chain/backfill-run.ts';
import { chainSource, verifyChainId } from '../../pipeline/chain/chain-source.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { chainSettings } from '../support/chain-harness.ts';
import { runSoulgraph } from '../support/child-process.ts';
import { devChain } from '../support/contracts.ts';
import { startHardhatNode, type HardhatNode } from '../support/hardhat-node.ts';
import { startMetadataServer, type MetadataServer } from '../support/metadata-server.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

let node: HardhatNode;
let meta: MetadataServer;
// CHAINS names the node's port, known once it runs: the config gets it in beforeAll.
const env = useTestEnvironment();
let workers: RunningWorkers;
let chain: Awaited<ReturnType<typeof devChain>>;
const c = {} as Record<'nft' | 'multi' | 'token' | 'sbt' | 'attest', Address>;
const lower = (a: string) => a.toLowerCase();
let head = 0;
let backfillSummary: Awaited<ReturnType<typeof runBackfill>>;

beforeAll(async () => {
  [node, meta] = await Promise.all([startHardhatNode(), startMetadataServer()]);
  Object.assign(env.config, parseConfig({ ...env.env, ...chainSettings(node) }));
  chain = await devChain(node.url);
  const a = chain.accounts;
  c.nft = await chain.deploy('TestNft', ['Test NFT', 'TNFT']);
  c.multi = await chain.deploy('TestMulti');
  c.token = await chain.deploy('TestToken', [10n ** 24n]);
  c.sbt = await chain.deploy('TestSoulbound', ['Badges', 'BDG']);
  c.attest = await chain.deploy('TestAttestation', ['Attestations', 'ATT']);
  await chain.send('TestNft', c.nft, 'mint', [a[1], 1n]);
  await chain.send('TestNft', c.nft, 'transferFrom', [a[1], a[2], 1n], a[1]);
  await chain.send('TestNft', c.nft, 'burn', [1n], a[2]);
  await chain.send('TestMulti', c.multi, 'mint', [a[1], 7n, 5n]);
  await chain.send('TestMulti', c.multi, 'mintBatch', [a[2], [1n, 2n], [10n, 20n]]);
  await chain.send('TestToken', c.token, 'transfer', [a[3], 1000n]);
  await chain.send('TestSoulbound', c.sbt, 'mint', [a[4], 1n, `${meta.url}/good/1.json`, 'did:a4 holds Badge 1']);
  await chain.send('TestSoulbound', c.sbt, 'mint', [a[5], 2n, `${meta.url}/missing.json`, '']);
  await chain.send('TestAttestation', c.attest, 'give', [a[6], 9n, `${meta.url}/good/9.json`]);
  await chain.transferEth(a[7]!, a[8]!, parseEther('1'));
  head = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
  workers = await startWorkers(env.config, createLogger(env.config, 'test'), { kinds: [], maintenance: false, materialize: false, chain: true });
  backfillSummary = await runBackfill(env.config, chainSource(env.config, 31337), 0, head);
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await Promise.all([node?.stop(), meta?.close()]);
});

const rows = <T extends z.ZodRawShape>(statement: ReturnType<typeof sql>, shape: T) => env.ch.query(statement, z.object(shape));

describe('backfilling a chain from a real node', () => {
  it('ingests every block once, with hashes linking each block to its parent', async () => {
    expect(backfillSummary.failed).toEqual([]);
    expect(backfillSummary.blocksDone).toBe(head + 1);
    const blocks = await rows(sql`SELECT number, hash, parent_hash FROM chain_blocks WHERE chain_id = 31337 ORDER BY number`, { number: z.coerce.number(), hash: z.string(), parent_hash: z.string() });
    expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
    blocks.slice(1).forEach((b, i) => expect(b.parent_hash).toBe(blocks[i]!.hash));
    const tip = await chain.publicClient.getBlock({ blockNumber: BigInt(head) });
    expect(blocks.at(-1)!.hash).toBe(tip.hash);
  });

  it('writes one transactions row per transaction, native value and all', async () => {
    const txs = await rows(sql`SELECT from_address, to_address, value FROM transactions WHERE chain_id = 31337 ORDER BY block_number`, { from_address: z.string(), to_address: z.string(), value: z.string() });
    expect(txs).toHaveLength(head); // one transaction per block after genesis (automine)
    expect(txs.at(-1)).toEqual({ from_address: lower(chain.accounts[7]!), to_address: lower(chain.accounts[8]!), value: '1000000000000000000' });
    expect(txs[0]).toMatchObject({ to_address: '' }); // a deployment has no recipient
  });

  it('turns ERC-721 mint, transfer and burn, and ERC-1155 single and batch transfers, into nft_transfers', async () => {
    const a = chain.accounts.map(lower);
    const zero = '0x0000000000000000000000000000000000000000';
    const nft = await rows(sql`SELECT contract, token_id, from_address, to_address, toString(amount) AS amount, toString(standard) AS standard FROM nft_transfers WHERE chain_id = 31337 ORDER BY block_number, log_index, token_id`, {
      contract: z.string(), token_id: z.string(), from_address: z.string(), to_address: z.string(), amount: z.string(), standard: z.string(),
    });
    expect(nft).toEqual([
      { contract: lower(c.nft), token_id: '1', from_address: zero, to_address: a[1], amount: '1', standard: 'ERC-721' },
      { contract: lower(c.nft), token_id: '1', from_address: a[1], to_address: a[2], amount: '1', standard: 'ERC-721' },
      { contract: lower(c.nft), token_id: '1', from_address: a[2], to_address: zero, amount: '1', standard: 'ERC-721' },
      { contract: lower(c.multi), token_id: '7', from_address: zero, to_address: a[1], amount: '5', standard: 'ERC-1155' },
      { contract: lower(c.multi), token_id: '1', from_address: zero, to_address: a[2], amount: '10', standard: 'ERC-1155' },
      { contract: lower(c.multi), token_id: '2', from_address: zero, to_address: a[2], amount: '20', standard: 'ERC-1155' },
      { contract: lower(c.sbt), token_id: '1', from_address: zero, to_address: a[4], amount: '1', standard: 'ERC-721' },
      { contract: lower(c.sbt), token_id: '2', from_address: zero, to_address: a[5], amount: '1', standard: 'ERC-721' },
    ]);
  });

  it('keeps ERC-20 transfers as token_transfers (counterparty evidence), not as NFTs', async () => {
    const a = chain.accounts.map(lower);
    const transfers = await rows(sql`SELECT contract, from_address, to_address, value FROM token_transfers WHERE chain_id = 31337 ORDER BY block_number`, { contract: z.string(), from_address: z.string(), to_address: z.string(), value: z.string() });
    expect(transfers).toEqual([
      { contract: lower(c.token), from_address: '0x0000000000000000000000000000000000000000', to_address: a[0], value: (10n ** 24n).toString() },
      { contract: lower(c.token), from_address: a[0], to_address: a[3], value: '1000' },
    ]);
  });

  it('records SBT mints (ERC-5192 Locked and ERC-4973 Attest) with tokenURI, rdfOf and fetched metadata', async () => {
    const a = chain.accounts.map(lower);
    const mints = await rows(sql`SELECT contract, token_id, owner, sbt_name, rdf_data, image_url, metadata_url FROM sbt_mints WHERE chain_id = 31337 ORDER BY contract = ${lower(c.attest)}, token_id`, {
      contract: z.string(), token_id: z.string(), owner: z.string(), sbt_name: z.string(), rdf_data: z.string(), image_url: z.string(), metadata_url: z.string(),
    });
    expect(mints).toEqual([
      { contract: lower(c.sbt), token_id: '1', owner: a[4], sbt_name: 'Badge 1', rdf_data: 'did:a4 holds Badge 1', image_url: 'ipfs://QmImage1', metadata_url: `${meta.url}/good/1.json` },
      { contract: lower(c.sbt), token_id: '2', owner: a[5], sbt_name: '', rdf_data: '', image_url: '', metadata_url: '' },
      { contract: lower(c.attest), token_id: '9', owner: a[6], sbt_name: 'Badge 9', rdf_data: '', image_url: 'ipfs://QmImage9', metadata_url: `${meta.url}/good/9.json` },
    ]);
    const byOwner = await rows(sql`SELECT token_id FROM sbt_mints_by_owner WHERE owner = ${a[4]!}`, { token_id: z.string() });
    expect(byOwner).toEqual([{ token_id: '1' }]);
  });

  it('keeps a mint whose metadata could not be fetched, with the reason', async () => {
    const sources = await rows(sql`SELECT token_id, toString(evidence) AS evidence, toString(metadata_status) AS status, metadata_reason FROM sbt_mint_sources WHERE chain_id = 31337 ORDER BY block_number`, {
      token_id: z.string(), evidence: z.string(), status: z.string(), metadata_reason: z.string(),
    });
    expect(sources).toEqual([
      { token_id: '1', evidence: 'erc5192-locked', status: 'ok', metadata_reason: '' },
      { token_id: '2', evidence: 'erc5192-locked', status: 'failed', metadata_reason: 'HTTP 404' },
      { token_id: '9', evidence: 'erc4973-attest', status: 'ok', metadata_reason: '' },
    ]);
  });

  it('soulbound tokens cannot move: the transfer reverts', async () => {
    const a = chain.accounts;
    await expect(
      chain.publicClient.simulateContract({ address: c.sbt, abi: chain.artifacts.TestSoulbound.abi, functionName: 'transferFrom', args: [a[4], a[5], 1n], account: a[4] }),
    ).rejects.toThrow(/Soulbound/);
  });

  it('reads each collection name and symbol once into nft_collections', async () => {
    const collections = await rows(sql`SELECT contract, name, symbol FROM nft_collections WHERE chain_id = 31337 ORDER BY name`, { contract: z.string(), name: z.string(), symbol: z.string() });
    expect(collections).toEqual([
      { contract: lower(c.multi), name: '', symbol: '' },
      { contract: lower(c.sbt), name: 'Badges', symbol: 'BDG' },
      { contract: lower(c.nft), name: 'Test NFT', symbol: 'TNFT' },
    ]);
  });

  it('marks the contracts that transactions went to, and only those', async () => {
    const labels = await rows(sql`SELECT address FROM address_labels WHERE chain_id = 31337 AND kind = 'contract' ORDER BY address`, { address: z.string() });
    expect(labels.map((l) => l.address)).toEqual(Object.values(c).map(lower).sort());
    const checked = await rows(sql`SELECT is_contract FROM chain_address_codes WHERE chain_id = 31337 AND address = ${lower(chain.accounts[8]!)}`, { is_contract: z.coerce.number() });
    expect(checked).toEqual([{ is_contract: 0 }]);
  });

  it('adds nothing when the same backfill runs again', async () => {
    const count = async () => (await rows(sql`SELECT (SELECT count() FROM transactions) + (SELECT count() FROM nft_transfers) + (SELECT count() FROM sbt_mints) + (SELECT count() FROM chain_blocks) AS n`, { n: z.coerce.number() }))[0]!.n;
    const before = await count();
    const again = await runBackfill(env.config, chainSource(env.config, 31337), 0, head);
    expect(again.failed).toEqual([]);
    expect(await count()).toBe(before);
  });

  it('soulgraph chain backfill reports the blocks it covered; done ranges are not written again', async () => {
    const childEnv = { ...env.env, ...chainSettings(node) };
    const { code, output } = await runSoulgraph(['chain', 'backfill', '--chain', '31337', '--from', '0', '--to', String(head)], childEnv);
    expect(code, output).toBe(0);
    expect(output).toMatch(new RegExp(`^Hardhat \\(chain 31337\\) blocks 0-${head}: ${head + 1} blocks in ${Math.ceil((head + 1) / 5)} jobs, `, 'm'));
    const unknown = await runSoulgraph(['chain', 'backfill', '--chain', '5', '--from', '0', '--to', '1'], childEnv);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('chain 5 is not configured in CHAINS (configured: 31337)');
  });

  it('refuses to ingest when the RPC serves another chain than configured', async () => {
    const wrong = parseConfig({ ...env.env, CHAINS: JSON.stringify([{ id: 5, rpcUrls: [node.url], confirmations: 0, blocksPerJob: 5 }]) });
    await expect(verifyChainId(chainSource(wrong, 5))).rejects.toThrow('the RPC of chain 5 (chain 5) serves chain 31337: check CHAINS');
  });
});
