/**
 * The ethereum-etl export format (github.com/blockchain-etl/ethereum-etl), which data
 * engineers already have: its columns mapped onto our canonical records. Only the kinds
 * ethereum-etl exports are supported; unknown extra columns are ignored.
 */
import type { KindName } from '../../shared/records/kinds.ts';

type Mapper = (row: Record<string, unknown>, chainId: number) => Record<string, unknown>;

const mappers: Partial<Record<KindName, Mapper>> = {
  // export_blocks_and_transactions: hash, nonce, block_hash, block_number, transaction_index,
  // from_address, to_address, value, gas, gas_price, input, block_timestamp, ...
  transactions: (row, chainId) => ({
    chainId,
    hash: row.hash,
    blockNumber: row.block_number,
    blockTime: row.block_timestamp,
    from: row.from_address,
    to: row.to_address,
    value: row.value,
  }),
  // export_token_transfers: token_address, from_address, to_address, value,
  // transaction_hash, log_index, block_number[, block_timestamp]
  'token-transfers': (row, chainId) => ({
    chainId,
    contract: row.token_address,
    from: row.from_address,
    to: row.to_address,
    value: row.value,
    txHash: row.transaction_hash,
    logIndex: row.log_index,
    blockNumber: row.block_number,
    blockTime: row.block_timestamp,
  }),
};

export const ethereumEtlKinds = Object.keys(mappers) as KindName[];

export function ethereumEtlMapper(kind: KindName): Mapper {
  const mapper = mappers[kind];
  if (!mapper) {
    throw new Error(`--format ethereum-etl is available for ${ethereumEtlKinds.join(' and ')}, not ${kind}`);
  }
  return mapper;
}
