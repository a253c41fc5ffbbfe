-- Soulbound tokens and who issues them. User tags derive from issuers' categories.

CREATE TABLE IF NOT EXISTS sbt_mints
(
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    contract      String   COMMENT 'SBT contract address, lowercase',
    token_id      String   COMMENT 'Token id, decimal string',
    owner         String   COMMENT 'Address the token is bound to, lowercase',
    sbt_name      String   COMMENT 'Token name from its metadata',
    rdf_data      String   COMMENT 'Semantic statement (RDF-style text), or empty',
    image_url     String   COMMENT 'Image URL, or empty',
    metadata_url  String   COMMENT 'Metadata URL, or empty',
    minted_at     DateTime COMMENT 'Mint time (UTC)',
    ingested_at   DateTime COMMENT 'When the pipeline wrote this row; the newest row per token wins'
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (chain_id, contract, token_id);

-- The same mints ordered by owner, so "SBTs held by an address" reads one range.
-- Kept in step with sbt_mints by the materialized view below.
CREATE TABLE IF NOT EXISTS sbt_mints_by_owner
(
    owner         String   COMMENT 'Address the token is bound to, lowercase',
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    contract      String   COMMENT 'SBT contract address, lowercase',
    token_id      String   COMMENT 'Token id, decimal string',
    sbt_name      String   COMMENT 'Token name from its metadata',
    rdf_data      String   COMMENT 'Semantic statement (RDF-style text), or empty',
    image_url     String   COMMENT 'Image URL, or empty',
    metadata_url  String   COMMENT 'Metadata URL, or empty',
    minted_at     DateTime COMMENT 'Mint time (UTC)',
    ingested_at   DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (owner, chain_id, contract, token_id)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS sbt_mints_by_owner_mv TO sbt_mints_by_owner AS
SELECT owner, chain_id, contract, token_id, sbt_name, rdf_data, image_url, metadata_url, minted_at, ingested_at
FROM sbt_mints;

CREATE TABLE IF NOT EXISTS sbt_issuers
(
    chain_id    UInt32   COMMENT 'EIP-155 chain id',
    contract    String   COMMENT 'SBT contract address, lowercase',
    issuer      String   COMMENT 'Project or organization that issues it',
    categories  Array(String) COMMENT 'Its categories (GameFi, DeFi, DAO, ...): the tags its holders receive',
    updated_at  DateTime COMMENT 'Time of this description; the newest row per contract wins',
    ingested_at DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (chain_id, contract);
