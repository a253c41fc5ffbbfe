-- On-chain activity: native transactions, fungible-token transfers, and labels for
-- addresses that are not people (contracts, exchanges, bridges, ...).
-- Event tables are partitioned by year, not month: a chunk of an export spanning many
-- months would otherwise write one small part per month on every insert.

CREATE TABLE IF NOT EXISTS transactions
(
    chain_id      UInt32   COMMENT 'EIP-155 chain id (1 = Ethereum mainnet)',
    hash          String   COMMENT 'Transaction hash, lowercase 0x-hex',
    block_number  UInt64   COMMENT 'Block number',
    block_time    DateTime COMMENT 'Block timestamp (UTC)',
    from_address  String   COMMENT 'Sender address, lowercase',
    to_address    String   COMMENT 'Recipient address, lowercase; empty for contract creation',
    value         String   COMMENT 'Value in wei, decimal string (exact; cast with toUInt256 on current ClickHouse)',
    ingested_at   DateTime COMMENT 'When the pipeline wrote this row; re-ingesting the same hash replaces the row'
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYear(block_time)
ORDER BY (chain_id, hash);

CREATE TABLE IF NOT EXISTS token_transfers
(
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    contract      String   COMMENT 'Token contract address, lowercase',
    from_address  String   COMMENT 'Sender address, lowercase',
    to_address    String   COMMENT 'Recipient address, lowercase',
    value         String   COMMENT 'Amount in the token''s smallest unit, decimal string',
    tx_hash       String   COMMENT 'Transaction hash',
    log_index     UInt32   COMMENT 'Log index within the block',
    block_number  UInt64   COMMENT 'Block number',
    block_time    Nullable(DateTime) COMMENT 'Block timestamp (UTC), when the source had it',
    ingested_at   DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (chain_id, tx_hash, log_index);

CREATE TABLE IF NOT EXISTS address_labels
(
    chain_id    UInt32   COMMENT 'EIP-155 chain id',
    address     String   COMMENT 'Labelled address, lowercase',
    kind        Enum8('contract' = 1, 'exchange' = 2, 'bridge' = 3, 'mixer' = 4, 'burn' = 5, 'other' = 6) COMMENT 'What the address is; none of these is a person',
    name        String   COMMENT 'Known name (e.g. Binance 14), or empty',
    updated_at  DateTime COMMENT 'Time of the label; the newest row per address wins',
    ingested_at DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (chain_id, address);
