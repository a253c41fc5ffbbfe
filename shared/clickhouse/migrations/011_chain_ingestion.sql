-- On-chain ingestion (pipeline/chain, docs/chains.md): the blocks each chain source has
-- ingested (hash and parent hash, for reorg detection), per-chain checkpoints, which block
-- ranges are done, and caches that spare repeated eth_call / eth_getCode / metadata fetches.
-- The facts themselves go to the raw tables of 003-005 (transactions, token_transfers,
-- nft_transfers, nft_collections, sbt_mints, address_labels).

CREATE TABLE IF NOT EXISTS chain_blocks
(
    chain_id     UInt32   COMMENT 'EIP-155 chain id',
    number       UInt64   COMMENT 'Block number',
    hash         String   COMMENT 'Block hash, lowercase 0x-hex',
    parent_hash  String   COMMENT 'Hash of the parent block; a new block whose parent_hash differs from the stored hash of number - 1 means a reorg',
    time         DateTime COMMENT 'Block timestamp (UTC)',
    tx_count     UInt32   COMMENT 'Transactions in the block',
    ingested_at  DateTime COMMENT 'When the pipeline wrote this row; rolled-back blocks are deleted, re-ingested ones written again'
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (chain_id, number);

CREATE TABLE IF NOT EXISTS chain_checkpoints
(
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    block_number  UInt64   COMMENT 'Highest block that follow mode has ingested with every block below it (0 with an empty hash: nothing yet)',
    block_hash    String   COMMENT 'Hash of that block as ingested (compared with the chain to detect a reorg at the checkpoint)',
    head_number   UInt64   COMMENT 'Chain head seen when the checkpoint was written',
    version       UInt64   COMMENT 'Increases with every write; the highest version per chain is the checkpoint',
    updated_at    DateTime COMMENT 'When the checkpoint was written'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY chain_id;

CREATE TABLE IF NOT EXISTS chain_ranges
(
    chain_id    UInt32   COMMENT 'EIP-155 chain id',
    from_block  UInt64   COMMENT 'First block of the range (inclusive)',
    to_block    UInt64   COMMENT 'Last block of the range (inclusive)',
    status      Enum8('started' = 1, 'done' = 2) COMMENT 'started: a job is writing it (or died doing so: its rows are deleted before the range is written again); done: every row of the range is in',
    job_id      String   COMMENT 'BullMQ job that wrote it',
    updated_at  DateTime COMMENT 'Time of this status',
    version     UInt64   COMMENT 'Increases with every status write; the highest version per range wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chain_id, from_block, to_block);

CREATE TABLE IF NOT EXISTS chain_address_codes
(
    chain_id     UInt32   COMMENT 'EIP-155 chain id',
    address      String   COMMENT 'Address seen as a transaction recipient, lowercase',
    is_contract  UInt8    COMMENT '1 if eth_getCode returned code (the address is also labelled contract in address_labels), 0 for an account without code',
    checked_at   DateTime COMMENT 'When eth_getCode was asked; every address is asked once'
)
ENGINE = ReplacingMergeTree(checked_at)
ORDER BY (chain_id, address);

CREATE TABLE IF NOT EXISTS sbt_mint_sources
(
    chain_id         UInt32   COMMENT 'EIP-155 chain id',
    contract         String   COMMENT 'SBT contract address, lowercase',
    token_id         String   COMMENT 'Token id, decimal string',
    block_number     UInt64   COMMENT 'Block of the mint (a reorg below it deletes the mint from sbt_mints and sbt_mints_by_owner)',
    tx_hash          String   COMMENT 'Transaction of the mint',
    log_index        UInt32   COMMENT 'Log index of the mint event within the block',
    evidence         Enum8('erc5192-locked' = 1, 'erc4973-attest' = 2) COMMENT 'Why the token is soulbound: an ERC-5192 Locked event with a mint transfer, or an ERC-4973 Attest event',
    token_uri        String   COMMENT 'tokenURI(tokenId) as the contract answered it, or empty',
    metadata_status  Enum8('ok' = 1, 'no_uri' = 2, 'refused' = 3, 'failed' = 4, 'invalid' = 5) COMMENT 'Outcome of fetching the metadata document: ok, no_uri (none given), refused (URL against the safety rules), failed (network, timeout, size), invalid (not a JSON object)',
    metadata_reason  String   COMMENT 'Why the metadata fields are empty, when metadata_status is not ok',
    ingested_at      DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (chain_id, contract, token_id);
