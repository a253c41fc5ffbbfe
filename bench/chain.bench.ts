/**
 * npm run bench:chain: blocks/s and logs/s of on-chain ingestion from a local Hardhat node,
 * over a generated chain of BENCH_BLOCKS (>= 10,000) blocks with transfer activity (native
 * transfers, ERC-20 transfers, ERC-721 mints and transfers, ERC-1155 batch mints, a few
 * soulbound mints), side by side with a baseline that reads the same ranges over the same
 * JSON-RPC (blocks with transactions + eth_getLogs, same parallelism) and writes nothing.
 * The ratio pipeline / baseline is what ingestion (decoding, ClickHouse writes, queue,
 * contract checks, collection names) costs on top of reading the chain.
 *
 *   BENCH_BLOCKS=10000  BENCH_BLOCKS_PER_JOB=100  BENCH_CONCURRENCY=2  BENCH_SEED=7
 */
import { parseConfig } from '../shared/config.ts';
import { createLogger } from '../shared/logger.ts';
import { encodeFunctionData, numberToHex, parseEther, type Address, type Hex } from 'viem';
import { z } from 'zod';
import { createClickHouse } from '../shared/clickhouse/client.ts';
import { sql } from '../shared/clickhouse/sql-literal.ts';
import { migrate } from '../shared/clickhouse/migrate.ts';
import { runBackfill, splitRange } from '../pipeline/chain/backfill-run.ts';
import { chainSource } from '../pipeline/chain/chain-source.ts';
import { fetchRange } from '../pipeline/chain/fetch-range.ts';
import { mapBounded } from '../pipeline/chain/pool.ts';
import { Rng } from '../pipeline/generate/random.ts';
import { startWorkers } from '../pipeline/workers.ts';
import { devChain } from '../test/support/contracts.ts';
import { startHardhatNode } from '../test/support/hardhat-node.ts';
import { startBenchStack } from './bench-stack.ts';

const BLOCKS = Math.max(Number(process.env.BENCH_BLOCKS ?? 10_000), 1);
const BLOCKS_PER_JOB = Number(process.env.BENCH_BLOCKS_PER_JOB ?? 100);
/** Range jobs at once (CHAIN_WORKER_CONCURRENCY); the baseline reads as many ranges at once. */
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '2';
const rng = new Rng(Number(process.env.BENCH_SEED ?? 7), 0, 0, 0);
const random = () => rng.float();
const pick = <T>(items: readonly T[]) => rng.pick(items);

const log = (line: string) => console.error(line);

const bench = await startBenchStack('chain');
const node = await startHardhatNode();
bench.shutdown.add('hardhat node', () => node.stop());
try {
  const chain = await devChain(node.url);
  const a = chain.accounts;
  const token = await chain.deploy('TestToken', [10n ** 30n]);
  const nft = await chain.deploy('TestNft', ['Bench NFT', 'BNFT']);
  const multi = await chain.deploy('TestMulti');
  const sbt = await chain.deploy('TestSoulbound', ['Bench Badges', 'BB']);
  // Everyone gets tokens to move around.
  for (const to of a.slice(1)) await chain.send('TestToken', token, 'transfer', [to, 10n ** 27n]);

  log(`generating ${BLOCKS} blocks with transfer activity ...`);
  const generateStarted = Date.now();
  await node.rpc('evm_setAutomine', [false]);
  const owned: { id: bigint; owner: Address }[] = [];
  let nextNft = 1n;
  let sent = 0;
  const start = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1;
  const call = (from: Address, to: Address, data: Hex, gas = 200_000) => ({ method: 'eth_sendTransaction', params: [{ from, to, data, gas: numberToHex(gas) }] });
  for (let b = 0; b < BLOCKS; b++) {
    const requests: { method: string; params: unknown[] }[] = [];
    const txs = Math.floor(random() * 7); // 0-6 transactions per block, ~3 on average
    for (let t = 0; t < txs; t++) {
      const from = pick(a);
      const to = pick(a);
      const kind = random();
      if (kind < 0.35) requests.push({ method: 'eth_sendTransaction', params: [{ from, to, value: numberToHex(parseEther('0.01')), gas: numberToHex(21_000) }] });
      else if (kind < 0.65) requests.push(call(from, token, encodeFunctionData({ abi: chain.artifacts.TestToken.abi, functionName: 'transfer', args: [to, BigInt(1 + Math.floor(random() * 1e6))] })));
      else if (kind < 0.8 || owned.length === 0) {
        owned.push({ id: nextNft, owner: to });
        requests.push(call(from, nft, encodeFunctionData({ abi: chain.artifacts.TestNft.abi, functionName: 'mint', args: [to, nextNft++] })));
      } else if (kind < 0.92) {
        const token721 = owned[Math.floor(random() * owned.length)]!;
        requests.push(call(token721.owner, nft, encodeFunctionData({ abi: chain.artifacts.TestNft.abi, functionName: 'transferFrom', args: [token721.owner, to, token721.id] })));
        token721.owner = to;
      } else if (kind < 0.99) {
        requests.push(call(from, multi, encodeFunctionData({ abi: chain.artifacts.TestMulti.abi, functionName: 'mintBatch', args: [to, [1n, 2n, 3n], [5n, 1n, 2n]] })));
      } else {
        const uri = `data:application/json;base64,${Buffer.from(JSON.stringify({ name: `Badge ${b}`, image: `ipfs://QmBadge${b}` })).toString('base64')}`;
        requests.push(call(from, sbt, encodeFunctionData({ abi: chain.artifacts.TestSoulbound.abi, functionName: 'mint', args: [to, BigInt(b + 1), uri, ''] }), 400_000));
      }
    }
    // One HTTP batch per block: its transactions, then the block mined.
    const body = [...requests, { method: 'evm_mine', params: [] }].map((r, i) => ({ jsonrpc: '2.0', id: i, ...r }));
    const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answers = (await response.json()) as { error?: { message: string } }[];
    const failed = answers.find((x) => x.error);
    if (failed) throw new Error(`block ${b}: ${failed.error!.message}`);
    sent += txs;
    if (b % 2_000 === 1_999) log(`  ${b + 1} blocks, ${sent} transactions`);
  }
  await node.rpc('evm_setAutomine', [true]);
  const end = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
  log(`generated blocks ${start}-${end} (${end - start + 1} blocks, ${sent} transactions sent) in ${((Date.now() - generateStarted) / 1000).toFixed(1)} s`);

  const env = {
    CLICKHOUSE_URL: bench.stack.clickhouseUrl,
    REDIS_URL: bench.stack.redisUrl,
    LOG_LEVEL: 'warn',
    WORKERS_HTTP_PORT: '0',
    CHAIN_WORKER_CONCURRENCY: CONCURRENCY,
    CHAINS: JSON.stringify([{ id: 31337, rpcUrls: [node.url], confirmations: 0, blocksPerJob: BLOCKS_PER_JOB }]),
  };
  const config = parseConfig(env);
  await migrate(config);
  const source = chainSource(config, 31337);

  // Baseline: the same ranges read over the same RPC, the same parallelism (worker concurrency x block fetches), nothing written.
  const ranges = splitRange(start, end, BLOCKS_PER_JOB);
  const baselineStarted = performance.now();
  const read = await mapBounded(ranges, config.CHAIN_WORKER_CONCURRENCY, ([from, to]) => fetchRange(source.client, from, to, config.CHAIN_BLOCK_FETCH_CONCURRENCY));
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;
  const baselineLogs = read.reduce((sum, r) => sum + r.logs.length, 0);
  const chainTransactions = read.reduce((sum, r) => sum + r.blocks.reduce((n, b) => n + b.transactions.length, 0), 0);

  // Pipeline: backfill through the chain queue and a chain worker, into ClickHouse.
  const workers = await startWorkers(config, createLogger(config, 'bench'), { kinds: [], maintenance: false, materialize: false, chain: true });
  const pipelineStarted = performance.now();
  const summary = await runBackfill(config, source, start, end);
  const pipelineSeconds = (performance.now() - pipelineStarted) / 1000;
  await workers.close();
  if (summary.failed.length > 0) throw new Error(`failed jobs: ${JSON.stringify(summary.failed.slice(0, 3))}`);

  const ch = createClickHouse(config);
  const counts = await ch.query(
    sql`SELECT (SELECT count() FROM transactions) AS transactions, (SELECT count() FROM token_transfers) AS token_transfers,
               (SELECT count() FROM nft_transfers) AS nft_transfers, (SELECT count() FROM sbt_mints) AS sbt_mints, (SELECT count() FROM chain_blocks) AS blocks`,
    z.object({ transactions: z.coerce.number(), token_transfers: z.coerce.number(), nft_transfers: z.coerce.number(), sbt_mints: z.coerce.number(), blocks: z.coerce.number() }),
  );
  await ch.close();

  const blocks = end - start + 1;
  const line = (name: string, seconds: number, logs: number) =>
    `${name.padEnd(34)} ${seconds.toFixed(1).padStart(7)} s ${Math.round(blocks / seconds).toString().padStart(8)} blocks/s ${Math.round(logs / seconds).toString().padStart(8)} logs/s`;
  console.log(`\nchain ingestion, ${blocks} blocks, ${sent} transactions, ${baselineLogs} logs (Hardhat 2 node, ${BLOCKS_PER_JOB} blocks per job, worker concurrency ${config.CHAIN_WORKER_CONCURRENCY})`);
  console.log(line('baseline: read only (JSON-RPC)', baselineSeconds, baselineLogs));
  console.log(line('pipeline: queue -> worker -> CH', pipelineSeconds, summary.logs));
  console.log(`ratio pipeline / baseline (blocks/s): ${(baselineSeconds / pipelineSeconds).toFixed(2)}`);
  console.log(`reproduce: BENCH_BLOCKS=${blocks} npm run bench:chain`);
  console.log(`rows written: ${JSON.stringify(counts[0])}`);
  // The pipeline must have written what the chain holds (sent transactions the node dropped are not on it).
  console.log(`transactions on the chain (as read by the baseline): ${chainTransactions}; in ClickHouse: ${counts[0]!.transactions}${chainTransactions === counts[0]!.transactions ? '' : '  MISMATCH'}`);
  console.log(`logs read by the baseline: ${baselineLogs}; by the pipeline: ${summary.logs}${baselineLogs === summary.logs ? '' : '  MISMATCH'}`);
} finally {
  await bench.shutdown.run();
}
