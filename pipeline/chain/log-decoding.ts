/**
 * Turns raw logs (eth_getLogs) into the transfers soulgraph keeps. Decoding is by topic
 * count, as the standards define it: `Transfer` with three indexed arguments is ERC-721
 * (token id in topic 3), with two it is ERC-20 (amount in data).
 */
import { decodeAbiParameters, toEventSelector, type Hex } from 'viem';

export const TOPICS = {
  transfer: toEventSelector('Transfer(address,address,uint256)'),
  transferSingle: toEventSelector('TransferSingle(address,address,address,uint256,uint256)'),
  transferBatch: toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'),
  /** ERC-5192 */
  locked: toEventSelector('Locked(uint256)'),
  /** ERC-4973 */
  attest: toEventSelector('Attest(address,uint256)'),
} as const;

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const MAX_UINT64 = (1n << 64n) - 1n;

/** A log as JSON-RPC returns it (fields soulgraph reads). */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

export interface DecodedLog {
  blockNumber: number;
  blockHash: string;
  txHash: string;
  logIndex: number;
  contract: string;
}

export type ChainEvent =
  | (DecodedLog & { type: 'erc20'; from: string; to: string; value: string })
  | (DecodedLog & { type: 'erc721'; from: string; to: string; tokenId: string })
  | (DecodedLog & { type: 'erc1155'; from: string; to: string; tokens: { tokenId: string; amount: bigint }[] })
  | (DecodedLog & { type: 'locked'; tokenId: string })
  | (DecodedLog & { type: 'attest'; to: string; tokenId: string });

export function topicAddress(topic: string): string {
  return `0x${topic.slice(-40)}`.toLowerCase();
}

const word = (data: string, i: number) => BigInt(`0x${data.slice(2 + 64 * i, 2 + 64 * (i + 1)) || '0'}`);

/** The event a log carries, or undefined for logs soulgraph does not keep (and malformed ones). */
export function decodeLog(log: RawLog): ChainEvent | undefined {
  if (log.removed) return undefined;
  const [topic0, t1, t2, t3] = log.topics;
  const base: DecodedLog = {
    blockNumber: Number(BigInt(log.blockNumber)),
    blockHash: log.blockHash.toLowerCase(),
    txHash: log.transactionHash.toLowerCase(),
    logIndex: Number(BigInt(log.logIndex)),
    contract: log.address.toLowerCase(),
  };
  try {
    switch (topic0) {
      case TOPICS.transfer:
        if (log.topics.length === 4) return { ...base, type: 'erc721', from: topicAddress(t1!), to: topicAddress(t2!), tokenId: BigInt(t3!).toString() };
        if (log.topics.length === 3 && log.data.length >= 66) return { ...base, type: 'erc20', from: topicAddress(t1!), to: topicAddress(t2!), value: word(log.data, 0).toString() };
        return undefined;
      case TOPICS.transferSingle:
        if (log.topics.length !== 4 || log.data.length < 130) return undefined;
        return { ...base, type: 'erc1155', from: topicAddress(t2!), to: topicAddress(t3!), tokens: [{ tokenId: word(log.data, 0).toString(), amount: word(log.data, 1) }] };
      case TOPICS.transferBatch: {
        if (log.topics.length !== 4) return undefined;
        const [ids, amounts] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data as Hex);
        if (ids.length !== amounts.length) return undefined;
        // The same id twice in one batch is one movement of the summed amount.
        const byId = new Map<string, bigint>();
        ids.forEach((id, i) => byId.set(id.toString(), (byId.get(id.toString()) ?? 0n) + amounts[i]!));
        return { ...base, type: 'erc1155', from: topicAddress(t2!), to: topicAddress(t3!), tokens: [...byId].map(([tokenId, amount]) => ({ tokenId, amount })) };
      }
      case TOPICS.locked:
        if (log.topics.length === 1 && log.data.length >= 66) return { ...base, type: 'locked', tokenId: word(log.data, 0).toString() };
        if (log.topics.length === 2) return { ...base, type: 'locked', tokenId: BigInt(t1!).toString() };
        return undefined;
      case TOPICS.attest:
        if (log.topics.length !== 3) return undefined;
        return { ...base, type: 'attest', to: topicAddress(t1!), tokenId: BigInt(t2!).toString() };
      default:
        return undefined;
    }
  } catch {
    // A log with the right topic but undecodable data (a non-standard contract): not ours.
    return undefined;
  }
}

/** nft_transfers.amount is UInt64: larger ERC-1155 amounts are capped. */
export function amountUInt64(amount: bigint): string {
  return (amount > MAX_UINT64 ? MAX_UINT64 : amount).toString();
}
