/** CHAINS parsing, the chain-follow schedules it declares, range splitting and log decoding. */
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, pad } from 'viem';
import { parseConfig } from '../../shared/config.ts';
import { splitRange } from '../../pipeline/chain/backfill-run.ts';
import { chainSources } from '../../pipeline/chain/chain-source.ts';
import { decodeLog, TOPICS, type RawLog } from '../../pipeline/chain/log-decoding.ts';
import { declaredSchedules } from '../../pipeline/schedules.ts';

const chains = (value: unknown) => ({ CHAINS: JSON.stringify(value) });

describe('CHAINS', () => {
  it('is empty by default, and then declares no chain-follow schedule', () => {
    const config = parseConfig({});
    expect(config.CHAINS).toEqual([]);
    expect(declaredSchedules(config).map((s) => s.id)).toEqual(['compact-raw-tables', 'nightly-materialize']);
  });

  it('reads each chain with its defaults, its name from CHAIN_NAMES unless given, and one follow schedule per chain', () => {
    const config = parseConfig(chains([{ id: 1, rpcUrls: ['https://a.example/key', 'https://b.example'] }, { id: 137, name: 'PoS', rpcUrls: ['http://p.example'], confirmations: 64, blocksPerJob: 500 }]));
    expect(chainSources(config).map(({ client: _, ...s }) => s)).toEqual([
      { id: 1, name: 'Ethereum', confirmations: 12, blocksPerJob: 100 },
      { id: 137, name: 'PoS', confirmations: 64, blocksPerJob: 500 },
    ]);
    const follow = declaredSchedules(config).filter((s) => s.queue === 'chain');
    expect(follow.map((s) => [s.id, s.cron, s.data])).toEqual([
      ['chain-follow-1', '*/15 * * * * *', { task: 'follow', chainId: 1 }],
      ['chain-follow-137', '*/15 * * * * *', { task: 'follow', chainId: 137 }],
    ]);
  });

  it.each([
    ['not JSON', 'must be a JSON array'],
    [JSON.stringify([{ id: 1, rpcUrls: [] }]), '0.rpcUrls'],
    [JSON.stringify([{ id: 1, rpcUrls: ['ws://x'] }]), 'rpcUrls must be http:// or https:// URLs'],
    [JSON.stringify([{ id: 1, rpcUrls: ['http://x'], typo: 1 }]), 'typo'],
    [JSON.stringify([{ id: 1, rpcUrls: ['http://x'] }, { id: 1, rpcUrls: ['http://y'] }]), 'a chain id appears twice'],
  ])('refuses %s, naming CHAINS but never showing its value (RPC URLs hold keys)', (value, reason) => {
    expect(() => parseConfig({ CHAINS: value })).toThrow(/^Invalid setting CHAINS \(value hidden\): /);
    expect(() => parseConfig({ CHAINS: value })).toThrow(reason);
  });
});

describe('splitRange', () => {
  it('covers the range exactly in pieces of at most the given size', () => {
    expect(splitRange(10, 34, 10)).toEqual([[10, 19], [20, 29], [30, 34]]);
    expect(splitRange(5, 5, 100)).toEqual([[5, 5]]);
  });
});

describe('decodeLog', () => {
  const address = (n: number) => pad(`0x${n.toString(16)}`, { size: 32 });
  const log = (topics: string[], data = '0x'): RawLog => ({ address: '0xABC0000000000000000000000000000000000001', topics, data, blockNumber: '0x10', blockHash: '0xh', transactionHash: '0xT', logIndex: '0x3' });

  it('tells ERC-20 from ERC-721 Transfer by the number of indexed arguments', () => {
    expect(decodeLog(log([TOPICS.transfer, address(1), address(2)], pad('0x64', { size: 32 })))).toMatchObject({ type: 'erc20', value: '100', blockNumber: 16, logIndex: 3, contract: '0xabc0000000000000000000000000000000000001' });
    expect(decodeLog(log([TOPICS.transfer, address(1), address(2), pad('0x7', { size: 32 })]))).toMatchObject({ type: 'erc721', tokenId: '7', from: '0x0000000000000000000000000000000000000001' });
  });

  it('sums an id repeated within one TransferBatch', () => {
    const data = encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [[1n, 2n, 1n], [5n, 1n, 2n]]);
    expect(decodeLog(log([TOPICS.transferBatch, address(9), address(0), address(2)], data))).toMatchObject({ type: 'erc1155', tokens: [{ tokenId: '1', amount: 7n }, { tokenId: '2', amount: 1n }] });
  });

  it('ignores other events, removed logs and malformed data', () => {
    expect(decodeLog(log(['0x1234', address(1)]))).toBeUndefined();
    expect(decodeLog({ ...log([TOPICS.transfer, address(1), address(2)], pad('0x1', { size: 32 })), removed: true })).toBeUndefined();
    expect(decodeLog(log([TOPICS.transferBatch, address(9), address(0), address(2)], '0xdead'))).toBeUndefined();
  });
});
