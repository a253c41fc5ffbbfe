-- API keys, issued by the administrator with `soulgraph apikey create`. Only a hash of
-- each key is stored; the key itself is shown once, when it is created.

CREATE TABLE IF NOT EXISTS api_keys
(
    key_id                 String   COMMENT 'Public identifier of the key (also its visible prefix)',
    key_hash               String   COMMENT 'sha256 of the whole key, hex; the key itself is never stored',
    name                   String   COMMENT 'Who the key is for (e.g. acme)',
    domains                Array(String) COMMENT 'Domains allowed in Sign-In with Ethereum messages made with this key',
    rate_limit_per_minute  UInt32   COMMENT 'Requests per minute per endpoint; 0 = the service default',
    created_at             DateTime COMMENT 'When the key was issued',
    revoked_at             Nullable(DateTime) COMMENT 'When the key was revoked; NULL while it is valid',
    updated_at             DateTime COMMENT 'Time of this state of the key; the newest row per key_id wins'
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY key_id
SETTINGS index_granularity = 256;
