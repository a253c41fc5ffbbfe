CREATE TABLE IF NOT EXISTS invites
(
    invitee_profile_id  String   COMMENT 'Profile that accepted the invitation',
    inviter_profile_id  String   COMMENT 'Profile that sent it',
    invite_code         String   COMMENT 'Invite code used, or empty when the inviter''s profileId was given',
    invited_at          DateTime COMMENT 'When the invitation was accepted; the newest row per invitee wins',
    ingested_at         DateTime COMMENT 'When the pipeline wrote this row'
)
ENGINE = ReplacingMergeTree(invited_at)
ORDER BY invitee_profile_id
SETTINGS index_granularity = 256;

-- Records the pipeline could not ingest, with the reason. One row per source line:
-- re-ingesting the same file replaces its rejects instead of repeating them.
CREATE TABLE IF NOT EXISTS ingest_rejects
(
    kind         String   COMMENT 'Record kind (transactions, profiles, ...)',
    source       String   COMMENT 'Source file name as given to the CLI, or the producer''s name',
    line         UInt64   COMMENT 'Line number in the source (1 = first line, header included for CSV)',
    reason       String   COMMENT 'Why the record was rejected',
    raw          String   COMMENT 'The record as received (truncated to 4 KiB)',
    job_id       String   COMMENT 'BullMQ job that processed it',
    rejected_at  DateTime COMMENT 'When it was rejected; the newest row per (kind, source, line) wins'
)
ENGINE = ReplacingMergeTree(rejected_at)
ORDER BY (kind, source, line);
