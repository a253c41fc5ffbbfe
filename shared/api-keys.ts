/**
 * API keys: their format, their hash, and how they are stored (the api_keys table,
 * migration 007). The CLI writes them (`soulgraph apikey`), the API reads them.
 *
 *   sg_<keyId>_<secret>   keyId: 12 lowercase hex characters, public (listed, logged)
 *                         secret: 32 base64url characters = 192 random bits
 *
 * Only sha256(key) is stored. A plain hash (not bcrypt/scrypt) is enough because the key
 * is random, not chosen by a person: no dictionary to try, and 2^192 guesses to brute-force.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouse } from './clickhouse/client.ts';
import { sql } from './clickhouse/sql-literal.ts';

const KEY_ID_BYTES = 6; // 12 hex characters
const SECRET_BYTES = 24; // 32 base64url characters
const API_KEY_FORMAT = /^sg_([0-9a-f]{12})_([A-Za-z0-9_-]{32})$/;
const KEY_ID_FORMAT = /^[0-9a-f]{12}$/;

export interface MintedApiKey {
  /** The whole key: shown to the administrator once, never stored. */
  key: string;
  keyId: string;
  keyHash: string;
}

/** What the API needs to know about a valid key. */
export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  name: string;
  /** Domains allowed in Sign-In with Ethereum messages made with this key. */
  domains: string[];
  /** Requests per minute per endpoint; 0 = the service default (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number;
}

export function mintApiKey(): MintedApiKey {
  const keyId = randomBytes(KEY_ID_BYTES).toString('hex');
  const key = `sg_${keyId}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { key, keyId, keyHash: hashApiKey(key) };
}

/** The key's id if the text has exactly the shape of a key; says nothing about validity. */
export function parseApiKey(text: string): { keyId: string } | undefined {
  const match = API_KEY_FORMAT.exec(text);
  return match ? { keyId: match[1]! } : undefined;
}

export function isApiKeyId(text: string): boolean {
  return KEY_ID_FORMAT.test(text);
}

/** sha256 of the whole key, lowercase hex: what api_keys.key_hash holds. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * One api_keys row. Times are unix seconds: that is what the insert path writes for
 * DateTime columns, and what `API_KEY_COLUMNS` reads back (no server time zone involved).
 */
export const apiKeyRowSchema = z.object({
  key_id: z.string().regex(KEY_ID_FORMAT),
  key_hash: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string(),
  domains: z.array(z.string()),
  rate_limit_per_minute: z.coerce.number().int().min(0),
  created_at: z.coerce.number().int(),
  revoked_at: z.coerce.number().int().nullable(),
  updated_at: z.coerce.number().int(),
});

export type ApiKeyRow = z.infer<typeof apiKeyRowSchema>;

const API_KEY_COLUMNS = sql`key_id, key_hash, name, domains, rate_limit_per_minute,
  toUnixTimestamp(created_at) AS created_at, toUnixTimestamp(revoked_at) AS revoked_at,
  toUnixTimestamp(updated_at) AS updated_at`;

/**
 * The current state of every key, revoked ones included (FINAL: the newest row per key_id).
 * On 18.16, FINAL is applied before WHERE (a WHERE is not moved to PREWHERE under FINAL),
 * so a condition on revoked_at sees the newest row only.
 */
export function readApiKeyRows(ch: Pick<ClickHouse, 'query'>): Promise<ApiKeyRow[]> {
  return ch.query(sql`SELECT ${API_KEY_COLUMNS} FROM api_keys FINAL ORDER BY created_at, key_id`, apiKeyRowSchema);
}

/** The current state of one key, or undefined if no such key was ever issued. */
export async function readApiKeyRow(ch: Pick<ClickHouse, 'query'>, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await ch.query(sql`SELECT ${API_KEY_COLUMNS} FROM api_keys FINAL WHERE key_id = ${keyId}`, apiKeyRowSchema);
  return row;
}

/** Every key that has not been revoked. */
export async function readActiveApiKeys(ch: Pick<ClickHouse, 'query'>): Promise<ApiKeyRecord[]> {
  const rows = await ch.query(sql`SELECT ${API_KEY_COLUMNS} FROM api_keys FINAL WHERE revoked_at IS NULL`, apiKeyRowSchema);
  return rows.map(toApiKeyRecord);
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    name: row.name,
    domains: row.domains,
    rateLimitPerMinute: row.rate_limit_per_minute,
  };
}
