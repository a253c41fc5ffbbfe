import { z } from 'zod';
import {
  address,
  blockNumber,
  chainId,
  decimalString,
  logIndex,
  optionalAddress,
  optionalTimestamp,
  optionalText,
  timestamp,
  txHash,
} from './fields.ts';
import { defineKind } from './record-kind.ts';
import { transactionFastPath } from './transaction-fast-path.ts';
import { TRANSACTION_TSV_COLUMNS, writeTransactionTsv } from './transaction-tsv-line.ts';

export const transactionRecord = z
  .strictObject({
    chainId,
    hash: txHash,
    blockNumber,
    blockTime: timestamp,
    from: address,
    to: optionalAddress,
    value: decimalString,
  })
  .transform((t) => ({
    chain_id: t.chainId,
    hash: t.hash,
    block_number: t.blockNumber,
    block_time: t.blockTime,
    from_address: t.from,
    to_address: t.to,
    value: t.value,
  }));

/** Fungible-token (ERC-20) transfers: counterparty evidence, like native transactions. */
export const tokenTransferRecord = z
  .strictObject({
    chainId,
    contract: address,
    from: address,
    to: address,
    value: decimalString,
    txHash,
    logIndex,
    blockNumber,
    blockTime: optionalTimestamp,
  })
  .transform((t) => ({
    chain_id: t.chainId,
    contract: t.contract,
    from_address: t.from,
    to_address: t.to,
    value: t.value,
    tx_hash: t.txHash,
    log_index: t.logIndex,
    block_number: t.blockNumber,
    block_time: t.blockTime ?? null,
  }));

export const addressLabelRecord = z
  .strictObject({
    chainId,
    address,
    kind: z.enum(['contract', 'exchange', 'bridge', 'mixer', 'burn', 'other']),
    name: optionalText(256),
    updatedAt: optionalTimestamp,
  })
  .transform((l) => ({
    chain_id: l.chainId,
    address: l.address,
    kind: l.kind,
    name: l.name,
    updated_at: l.updatedAt ?? Math.floor(Date.now() / 1000),
  }));

export const transactionsKind = defineKind({
  name: 'transactions',
  table: 'transactions',
  description: 'Native-currency transactions (value in wei, as a decimal string).',
  schema: transactionRecord,
  fastPath: transactionFastPath,
  tsvLine: { columns: TRANSACTION_TSV_COLUMNS, write: writeTransactionTsv },
  example: {
    chainId: 1,
    hash: '0xe6e3adc26100e603097ad9e0dfe9b097f3a8be17c04d541805220a5f30b304ef',
    blockNumber: 3300400,
    blockTime: 1488775107,
    from: '0x593c97a298bacbdfcf1a820772bdb2fd564a7a1b',
    to: '0x08f054e89b7f2b921058dcde4e1ce746934394a6',
    value: '1000000000000000000',
  },
});

export const tokenTransfersKind = defineKind({
  name: 'token-transfers',
  table: 'token_transfers',
  description: 'Fungible-token (ERC-20) Transfer logs, used as counterparty evidence.',
  schema: tokenTransferRecord,
  example: {
    chainId: 1,
    contract: '0xf4eced2f682ce333f96f2d8966c613ded8fc95dd',
    from: '0x1b63142628311395ceafeea5667e7c9026c862ca',
    to: '0xac4df82fe37ea2187bc8c011a23d743b4f39019a',
    value: '100000',
    txHash: '0x04cbcb236043d8fb7839e07bbc7f5eed692fb2ca55d897f1101eac3e3ad4fab8',
    logIndex: 0,
    blockNumber: 483920,
  },
});

export const addressLabelsKind = defineKind({
  name: 'address-labels',
  table: 'address_labels',
  description: 'Known addresses (contracts, exchanges, bridges, ...) that recommendations must not treat as people.',
  schema: addressLabelRecord,
  example: { chainId: 1, address: '0x28c6c06298d514db089934071355e5743bf21d60', kind: 'exchange', name: 'Binance 14' },
});
