-- NFTs: transfers (mints come from the zero address, burns go to it) and collections.
-- Holdings are derived from transfers, never typed in: see the view nft_holdings.

CREATE TABLE IF NOT EXISTS nft_transfers
(
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    contract      String   COMMENT 'Collection contract address, lowercase',
    token_id      String   COMMENT 'Token id, decimal string',
    from_address  String   COMMENT 'Previous holder (zero address for a mint), lowercase',
    to_address    String   COMMENT 'New holder (zero address for a burn), lowercase',
    amount        UInt64   COMMENT 'Tokens moved: always 1 for ERC-721',
    standard      Enum8('ERC-721' = 1, 'ERC-1155' = 2) COMMENT 'Token standard',
    block_number  UInt64   COMMENT 'Block number',
    block_time    DateTime COMMENT 'Block timestamp (UTC)',
    log_index     UInt32   COMMENT 'Log index within the block',
    tx_hash       String   COMMENT 'Transaction hash',
    ingested_at   DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYear(block_time)
ORDER BY (chain_id, tx_hash, log_index, token_id);

CREATE TABLE IF NOT EXISTS nft_collections
(
    chain_id    UInt32   COMMENT 'EIP-155 chain id',
    contract    String   COMMENT 'Collection contract address, lowercase',
    name        String   COMMENT 'Collection name (ERC-721 name()), or empty',
    symbol      String   COMMENT 'Collection symbol, or empty',
    updated_at  DateTime COMMENT 'Time of this description; the newest row per contract wins',
    ingested_at DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (chain_id, contract);

-- Current balance per (token, holder): tokens in minus tokens out, positive balances only.
CREATE VIEW IF NOT EXISTS nft_holdings AS
SELECT
    chain_id,
    contract,
    token_id,
    holder,
    sum(delta) AS balance
FROM
(
    SELECT
        chain_id,
        contract,
        token_id,
        arrayJoin([(to_address, toInt64(amount)), (from_address, -toInt64(amount))]) AS movement,
        movement.1 AS holder,
        movement.2 AS delta
    FROM nft_transfers FINAL
)
WHERE holder != '0x0000000000000000000000000000000000000000'
GROUP BY chain_id, contract, token_id, holder
HAVING balance > 0;
