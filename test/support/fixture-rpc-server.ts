/**
 * A small JSON-RPC server that replays recorded mainnet responses (../shared/data): blocks
 * from eth_getBlockByNumber fixtures, logs from receipt and filter-log fixtures, answered
 * to eth_getBlockByNumber, eth_getLogs (range and topic filter), eth_blockNumber and
 * eth_chainId, single or batched. Anything else answers "method not found", as a node
 * without that method would.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

interface Block {
  number: string;
  hash: string;
  [key: string]: unknown;
}
interface Log {
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  topics: string[];
  [key: string]: unknown;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

export interface FixtureRpcServer {
  url: string;
  blocks: Map<number, Block>;
  close(): Promise<void>;
}

/** Loads every block and log fixture under `dirs` (files named as ethereum-etl records them), plus raw block JSON files. */
export async function startFixtureRpcServer(dirs: string[], rawBlockFiles: string[] = []): Promise<FixtureRpcServer> {
  const blocks = new Map<number, Block>();
  const logs = new Map<string, Log>();
  const addLogs = (list: Log[]) => list.forEach((l) => logs.set(`${l.blockHash}:${l.logIndex}`, l));
  for (const file of dirs.flatMap(filesUnder)) {
    const name = path.basename(file);
    if (/^web3_response\.eth_getBlockByNumber_0x[0-9a-f]+_true\.json$/.test(name)) {
      const block = (JSON.parse(readFileSync(file, 'utf8')) as { result: Block }).result;
      blocks.set(Number(BigInt(block.number)), block);
    } else if (/^web3_response\.eth_getTransactionReceipt_/.test(name)) {
      addLogs((JSON.parse(readFileSync(file, 'utf8')) as { result: { logs: Log[] } }).result.logs);
    } else if (/^web3_response\.eth_getFilterLogs_/.test(name)) {
      addLogs((JSON.parse(readFileSync(file, 'utf8')) as { result: Log[] }).result);
    }
  }
  for (const file of rawBlockFiles) {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Block | { result: Block };
    const block = ('result' in json ? json.result : json) as Block & { transactions: unknown[] };
    // A block recorded with transaction hashes only answers eth_getBlockByNumber(n, false): not served here.
    if (block.transactions.every((t) => typeof t === 'object')) blocks.set(Number(BigInt(block.number)), block);
  }

  const answer = (request: { id: unknown; method: string; params?: unknown[] }) => {
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: request.id, result });
    const params = request.params ?? [];
    switch (request.method) {
      case 'eth_chainId':
        return ok('0x1');
      case 'eth_blockNumber':
        return ok(`0x${Math.max(...blocks.keys()).toString(16)}`);
      case 'eth_getBlockByNumber':
        return ok(blocks.get(Number(BigInt(params[0] as string))) ?? null);
      case 'eth_getLogs': {
        const filter = params[0] as { fromBlock: string; toBlock: string; topics?: (string | string[] | null)[] };
        const from = Number(BigInt(filter.fromBlock));
        const to = Number(BigInt(filter.toBlock));
        const topic0 = filter.topics?.[0];
        const wanted = topic0 == null ? undefined : new Set(Array.isArray(topic0) ? topic0 : [topic0]);
        const found = [...logs.values()]
          .filter((l) => {
            const n = Number(BigInt(l.blockNumber));
            return n >= from && n <= to && (!wanted || wanted.has(l.topics[0]!));
          })
          .sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
        return ok(found);
      }
      default:
        return { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `the method ${request.method} does not exist/is not available` } };
    }
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Parameters<typeof answer>[0] | Parameters<typeof answer>[0][];
      const result = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    blocks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
