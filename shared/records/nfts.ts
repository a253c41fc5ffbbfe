import { z } from 'zod';
import {
  address,
  blockNumber,
  chainId,
  decimalString,
  logIndex,
  optionalText,
  optionalTimestamp,
  timestamp,
  txHash,
  int64String,
} from './fields.ts';
import { defineKind } from './record-kind.ts';

/**
 * One NFT transfer (a mint is a transfer from the zero address, a burn one to it).
 * Holdings are derived from these (view nft_holdings), never typed in by hand.
 */
export const nftTransferRecord = z
  .strictObject({
    chainId,
    contract: address,
    tokenId: decimalString,
    from: address,
    to: address,
    amount: z.preprocess((v) => (v === '' || v === undefined || v === null ? '1' : v), int64String),
    standard: z.enum(['ERC-721', 'ERC-1155']),
    blockNumber,
    blockTime: timestamp,
    logIndex,
    txHash,
  })
  .refine((t) => t.standard === 'ERC-1155' || t.amount === '1', {
    message: 'an ERC-721 transfer moves exactly one token',
    path: ['amount'],
  })
  .transform((t) => ({
    chain_id: t.chainId,
    contract: t.contract,
    token_id: t.tokenId,
    from_address: t.from,
    to_address: t.to,
    amount: t.amount,
    standard: t.standard,
    block_number: t.blockNumber,
    block_time: t.blockTime,
    log_index: t.logIndex,
    tx_hash: t.txHash,
  }));

export const nftCollectionRecord = z
  .strictObject({
    chainId,
    contract: address,
    name: optionalText(256),
    symbol: optionalText(64),
    updatedAt: optionalTimestamp,
  })
  .transform((c) => ({
    chain_id: c.chainId,
    contract: c.contract,
    name: c.name,
    symbol: c.symbol,
    updated_at: c.updatedAt ?? Math.floor(Date.now() / 1000),
  }));

export const nftTransfersKind = defineKind({
  name: 'nft-transfers',
  table: 'nft_transfers',
  description: 'ERC-721 and ERC-1155 transfers, mints and burns.',
  schema: nftTransferRecord,
  example: {
    chainId: 1,
    contract: '0xb47e3cd837ddf8e4c57f05d70ab865de6e193bbb',
    tokenId: '7804',
    from: '0x0000000000000000000000000000000000000000',
    to: '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff',
    amount: '1',
    standard: 'ERC-721',
    blockNumber: 3914495,
    blockTime: '2017-06-23T19:45:54Z',
    logIndex: 12,
    txHash: '0x24f2f8d3bda61a50804cb7722a6e7aff145b4266e7431ae2727beccae0d7d72d',
  },
});

export const nftCollectionsKind = defineKind({
  name: 'nft-collections',
  table: 'nft_collections',
  description: 'NFT collection names and symbols, by contract.',
  schema: nftCollectionRecord,
  example: { chainId: 1, contract: '0xb47e3cd837ddf8e4c57f05d70ab865de6e193bbb', name: 'CryptoPunks', symbol: 'PUNK' },
});
