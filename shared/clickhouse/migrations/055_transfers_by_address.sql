-- The keys of the transfers under each address they are from or to, so that "which
-- transfers touch these addresses" reads a few ranges instead of scanning both address
-- columns of every transfer: a newcomer's list computed on demand asks it once per table
-- (pipeline/materialize/own-transfers.ts), and in a world of a million profiles those scans
-- took 0.3-0.7 s of the 5 s the API waits, growing with the world. Kept in step by the
-- materialized views below, as follows_by_followee is with follows (053); every insert of a
-- transfer pays for it (docs/benchmarks.md, bench:ingest).
--
-- An index, not a copy: each key leads back to its row in its own table, which keeps
-- deciding what is true (FINAL, a reorg's delete), and the reader checks the addresses there
-- again. So a reorg leaves its keys here: one whose row is gone finds nothing, and deleting
-- them would rewrite every part of this table (a block's keys are spread over all of them).
--
-- Ordered by a hash of the address, not the address: sorting each insert's keys by a number
-- took half as long as by the address's text (an insert of 1 M transactions 2.8 s against
-- 4.1 s, 1.3 s without the index), and reading by the hash finds the same ranges.
-- "The transactions from or to 0xab..": SELECT chain_id, tx_hash FROM transfers_by_address WHERE address_hash = cityHash64('0xab..') AND address = '0xab..' AND source = 'transactions'

CREATE TABLE IF NOT EXISTS transfers_by_address
(
    address_hash  UInt64   COMMENT 'cityHash64(address): what the table is ordered by; find an address by both',
    address       String   COMMENT 'An address the transfer is from or to, lowercase (a transfer has a row for each)',
    source        String   COMMENT 'The table the transfer is in: transactions, token_transfers or nft_transfers',
    chain_id      UInt32   COMMENT 'EIP-155 chain id',
    tx_hash       String   COMMENT 'Transaction hash (transactions.hash for a transaction)',
    log_index     UInt32   COMMENT 'Log index within the block; 0 for a transaction',
    token_id      String   COMMENT 'Token id of an NFT transfer; empty otherwise'
)
ENGINE = ReplacingMergeTree
ORDER BY (address_hash, tx_hash, log_index, source, chain_id, token_id)
SETTINGS index_granularity = 256;

-- The views first, then the copy of what the tables hold: a transfer written in between
-- lands in both, and its two copies are one key. No address (a contract's creation) and the
-- zero address (every mint's and burn's other end, nobody's wallet) get no keys.
CREATE MATERIALIZED VIEW IF NOT EXISTS transactions_by_address_mv TO transfers_by_address AS
SELECT cityHash64(address) AS address_hash, address, 'transactions' AS source, chain_id, hash AS tx_hash, toUInt32(0) AS log_index, '' AS token_id
FROM transactions
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');

CREATE MATERIALIZED VIEW IF NOT EXISTS token_transfers_by_address_mv TO transfers_by_address AS
SELECT cityHash64(address) AS address_hash, address, 'token_transfers' AS source, chain_id, tx_hash, log_index, '' AS token_id
FROM token_transfers
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');

CREATE MATERIALIZED VIEW IF NOT EXISTS nft_transfers_by_address_mv TO transfers_by_address AS
SELECT cityHash64(address) AS address_hash, address, 'nft_transfers' AS source, chain_id, tx_hash, log_index, token_id
FROM nft_transfers
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');

INSERT INTO transfers_by_address (address_hash, address, source, chain_id, tx_hash, log_index, token_id)
SELECT cityHash64(address) AS address_hash, address, 'transactions' AS source, chain_id, hash AS tx_hash, toUInt32(0) AS log_index, '' AS token_id
FROM transactions
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');

INSERT INTO transfers_by_address (address_hash, address, source, chain_id, tx_hash, log_index, token_id)
SELECT cityHash64(address) AS address_hash, address, 'token_transfers' AS source, chain_id, tx_hash, log_index, '' AS token_id
FROM token_transfers
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');

INSERT INTO transfers_by_address (address_hash, address, source, chain_id, tx_hash, log_index, token_id)
SELECT cityHash64(address) AS address_hash, address, 'nft_transfers' AS source, chain_id, tx_hash, log_index, token_id
FROM nft_transfers
ARRAY JOIN [from_address, to_address] AS address
WHERE address NOT IN ('', '0x0000000000000000000000000000000000000000');
