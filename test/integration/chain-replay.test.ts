/**
 * Real mainnet data: recorded JSON-RPC responses (ethereum-etl's test fixtures and
 * ethereumjs's block fixtures, in ../shared/data) replayed by a local JSON-RPC server,
 * backfilled through the chain queue, and checked against the flattened exports
 * ethereum-etl ships with the same fixtures.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient } from 'viem';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { parseConfig, type Config } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { runBackfill } from '../../pipeline/chain/backfill-run.ts';
import { chainSource } from '../../pipeline/chain/chain-source.ts';
import { fetchLogs } from '../../pipeline/chain/fetch-range.ts';
import { decodeLog } from '../../pipeline/chain/log-decoding.ts';
import { rpcTransport } from '../../pipeline/chain/rpc-transport.ts';
import { startWorkers, type RunningWorkers } from '../../pipeline/workers.ts';
import { startFixtureRpcServer, type FixtureRpcServer } from '../support/fixture-rpc-server.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const ETL = path.join(DATA, 'ethereum-etl-fixtures/tests/resources');
// (testdata-from-rpc-with-withdrawals.json holds transaction hashes only: it is not a full-block answer.)
const JSONRPC_BLOCKS = ['alchemy14151203.json', 'infura15571241wtxns.json', 'infura2000004wtxs.json'].map((f) =>
  path.join(DATA, 'ethereum-jsonrpc-blocks', f),
);

const env = useTestEnvironment();
let server: FixtureRpcServer;
let config: Config;
let workers: RunningWorkers;

/** ethereum-etl's JSON lines, with big integers kept exact (as strings). */
const jsonLines = (file: string) =>
  readFileSync(path.join(ETL, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line.replace(/"(value)": (\d+)/g, '"$1": "$2"')) as Record<string, unknown>);
const csv = (file: string) => parseCsv(readFileSync(path.join(ETL, file), 'utf8'), { columns: true }) as Record<string, string>[];

const txRow = z.object({ hash: z.string(), block_number: z.coerce.number(), block_time: z.coerce.number(), from_address: z.string(), to_address: z.string(), value: z.string() });
const transferRow = z.object({ contract: z.string(), from_address: z.string(), to_address: z.string(), value: z.string(), tx_hash: z.string(), log_index: z.coerce.number(), block_number: z.coerce.number() });
const transactions = (from: number, to: number) =>
  env.ch.query(sql`SELECT hash, block_number, toUnixTimestamp(block_time) AS block_time, from_address, to_address, value FROM transactions WHERE chain_id = 1 AND block_number BETWEEN ${from} AND ${to} ORDER BY block_number, hash`, txRow);
const transfers = (from: number, to: number) =>
  env.ch.query(sql`SELECT contract, from_address, to_address, value, tx_hash, log_index, block_number FROM token_transfers WHERE chain_id = 1 AND block_number BETWEEN ${from} AND ${to} ORDER BY block_number, log_index`, transferRow);
const byBlockAndHash = <T extends { block_number: number; hash: string }>(rows: T[]) => [...rows].sort((a, b) => a.block_number - b.block_number || a.hash.localeCompare(b.hash));

beforeAll(async () => {
  server = await startFixtureRpcServer([path.join(ETL, 'test_export_blocks_job'), path.join(ETL, 'test_export_token_transfers_job'), path.join(ETL, 'test_stream/blocks_1755634_1755635')], JSONRPC_BLOCKS);
  config = parseConfig({ ...env.env, CHAINS: JSON.stringify([{ id: 1, rpcUrls: [server.url], confirmations: 0, blocksPerJob: 10 }]) });
  workers = await startWorkers(config, createLogger(config, 'test'), { kinds: [], maintenance: false, materialize: false, chain: true });
  const source = chainSource(config, 1);
  for (const n of [...server.blocks.keys()].sort((a, b) => a - b)) {
    const summary = await runBackfill(config, source, n, n);
    expect(summary.failed).toEqual([]);
  }
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await server?.close();
});

describe('replaying recorded mainnet JSON-RPC', () => {
  it('parses the transactions of blocks 47218-47219 as ethereum-etl exported them', async () => {
    const expected = csv('test_export_blocks_job/blocks_with_transactions/expected_transactions.csv').map((r) => ({
      hash: r.hash!, block_number: Number(r.block_number), block_time: Number(r.block_timestamp), from_address: r.from_address!, to_address: r.to_address!, value: r.value!,
    }));
    expect(expected).toHaveLength(4);
    expect(await transactions(47218, 47219)).toEqual(byBlockAndHash(expected));
  });

  it('parses block 483920: its transactions and its ERC-20 transfers, from the logs', async () => {
    const expectedTxs = csv('test_export_blocks_job/block_with_logs/expected_transactions.csv').map((r) => ({
      hash: r.hash!, block_number: Number(r.block_number), block_time: Number(r.block_timestamp), from_address: r.from_address!, to_address: r.to_address!, value: r.value!,
    }));
    expect(await transactions(483920, 483920)).toEqual(byBlockAndHash(expectedTxs));
    const expectedTransfers = csv('test_export_token_transfers_job/block_with_transfers/expected_token_transfers.csv').map((r) => ({
      contract: r.token_address!, from_address: r.from_address!, to_address: r.to_address!, value: r.value!, tx_hash: r.transaction_hash!, log_index: Number(r.log_index), block_number: Number(r.block_number),
    }));
    expect(expectedTransfers).toHaveLength(2);
    expect(await transfers(483920, 483920)).toEqual(expectedTransfers);
  });

  it('parses blocks 1755634-1755635: transactions, logs and token transfers match the stream export', async () => {
    const dir = 'test_stream/blocks_1755634_1755635';
    const expectedTxs = jsonLines(`${dir}/expected_transactions.json`).map((r) => ({
      hash: r.hash as string, block_number: r.block_number as number, block_time: r.block_timestamp as number, from_address: r.from_address as string, to_address: r.to_address as string, value: String(r.value),
    }));
    expect(await transactions(1755634, 1755635)).toEqual(byBlockAndHash(expectedTxs));

    const expectedTransfers = jsonLines(`${dir}/expected_token_transfers.json`).map((r) => ({
      contract: r.token_address as string, from_address: r.from_address as string, to_address: r.to_address as string, value: r.value as string, tx_hash: r.transaction_hash as string, log_index: r.log_index as number, block_number: r.block_number as number,
    }));
    expect(await transfers(1755634, 1755635)).toEqual(expectedTransfers);

    // The logs we read and decode are the export's Transfer logs, field for field.
    const client = createPublicClient({ transport: rpcTransport([server.url], { timeoutMs: 5_000 }) });
    const logs = await fetchLogs(client, 1755634, 1755635);
    const expectedLogs = jsonLines(`${dir}/expected_logs.json`).filter((l) => (l.topics as string[])[0] === '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    expect(logs.map((l) => ({ address: l.address, data: l.data, topics: l.topics, block_number: Number(BigInt(l.blockNumber)), log_index: Number(BigInt(l.logIndex)), transaction_hash: l.transactionHash }))).toEqual(
      expectedLogs.map((l) => ({ address: l.address, data: l.data, topics: l.topics, block_number: l.block_number, log_index: l.log_index, transaction_hash: l.transaction_hash })),
    );
    expect(logs.map(decodeLog).map((e) => e?.type)).toEqual(['erc20']);
  });

  it('ingests real blocks of later eras (2016, 2022 legacy and EIP-1559 transactions) with every transaction and the block hashes', async () => {
    for (const [number, block] of server.blocks) {
      if (number < 2_000_000) continue; // the ethereum-etl blocks are checked above
      const raw = block as unknown as { hash: string; parentHash: string; transactions: { hash: string; value: string }[] };
      const rows = await transactions(number, number);
      expect(rows.map((r) => r.hash).sort(), `block ${number}`).toEqual(raw.transactions.map((t) => t.hash).sort());
      const total = rows.reduce((sum, r) => sum + BigInt(r.value), 0n);
      expect(total, `block ${number}`).toBe(raw.transactions.reduce((sum, t) => sum + BigInt(t.value), 0n));
      const [stored] = await env.ch.query(sql`SELECT hash, parent_hash FROM chain_blocks WHERE chain_id = 1 AND number = ${number}`, z.object({ hash: z.string(), parent_hash: z.string() }));
      expect(stored).toEqual({ hash: raw.hash, parent_hash: raw.parentHash });
    }
  });
});
