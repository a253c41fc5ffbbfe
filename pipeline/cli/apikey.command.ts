/**
 * `soulgraph apikey create|list|revoke`: the administrator issues and withdraws the keys
 * apps send in the ApiKey header. A key is printed once, at creation; only its hash is
 * stored, so a lost key is revoked and replaced, never recovered.
 */
import { Command } from 'commander';
import { z } from 'zod';
import { isApiKeyId, mintApiKey, readApiKeyRow, readApiKeyRows, type ApiKeyRow } from '../../shared/api-keys.ts';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { openProcessContext } from '../../shared/process/process-context.ts';
import { formatTable } from './text-table.ts';
import { UsageError } from './usage-error.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);

/** A hostname (labels of letters, digits and inner hyphens) with an optional port, as SIWE's `domain`. */
const HOST_WITH_PORT =
  /^(?=.{1,253}(:|$))[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:([1-9][0-9]{0,4}))?$/;

const domain = z
  .string()
  .trim()
  .toLowerCase() // hostnames are case-insensitive; one spelling makes the API's comparison exact
  .refine((d) => HOST_WITH_PORT.test(d) && portOf(d) <= 65_535, {
    error: (issue) => `--domain ${JSON.stringify(issue.input)} is not a hostname with an optional port, like app.acme.xyz or localhost:3000`,
  });

const createOptionsSchema = z.object({
  name: z
    .string({ error: '--name is required' })
    .trim()
    .min(1, '--name must not be empty')
    .max(64, '--name must be at most 64 characters')
    .regex(/^[A-Za-z0-9 _.-]+$/, '--name may contain only letters, digits, spaces and _ . -'),
  domain: z
    .array(domain, { error: 'at least one --domain is required' })
    .min(1, 'at least one --domain is required')
    .transform((domains) => [...new Set(domains)]),
  rateLimit: z
    .string()
    .regex(/^\d+$/, '--rate-limit must be a whole number of requests per minute')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1_000_000, '--rate-limit must be from 1 to 1000000')
    .optional(),
});

type CreateOptions = z.infer<typeof createOptionsSchema>;

export function apikeyCommand(): Command {
  return new Command('apikey')
    .description('Issue, list and revoke the API keys apps send in the ApiKey header')
    .addCommand(createSubcommand())
    .addCommand(listSubcommand())
    .addCommand(revokeSubcommand());
}

function createSubcommand(): Command {
  return new Command('create')
    .description('Issue a key and print it once (only its hash is stored)')
    .option('--name <name>', 'who the key is for (1-64 characters: letters, digits, space, _ . -)')
    .option('--domain <domain>', 'a domain allowed in Sign-In with Ethereum messages (repeat for several)', collect)
    .option('--rate-limit <perMinute>', 'requests per minute per endpoint (default: RATE_LIMIT_PER_MINUTE)')
    .addHelpText('after', '\nExample:\n  soulgraph apikey create --name acme --domain app.acme.xyz --domain localhost:3000')
    .action(async (raw: Record<string, unknown>) => {
      const parsed = createOptionsSchema.safeParse(raw);
      if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
      await withClickHouse('apikey', (ch) => createKey(ch, parsed.data));
    });
}

function listSubcommand(): Command {
  return new Command('list')
    .description('List keys with their status (never the keys themselves)')
    .action(async () => {
      await withClickHouse('apikey', async (ch) => {
        process.stdout.write(`${keyTable(await readApiKeyRows(ch)).join('\n')}\n`);
      });
    });
}

function revokeSubcommand(): Command {
  return new Command('revoke')
    .description('Revoke a key: the API refuses it within APIKEY_CACHE_SECONDS')
    .argument('<keyId>', 'the key id shown by `soulgraph apikey list` (the 12 characters after sg_)')
    .action(async (keyId: string) => {
      if (!isApiKeyId(keyId)) throw new UsageError(`"${keyId}" is not a key id (12 lowercase hex characters, as in apikey list)`);
      await withClickHouse('apikey', (ch) => revokeKey(ch, keyId));
    });
}

/** Commander's accumulator for a repeated option (no default: help would show "[]"). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function portOf(hostWithPort: string): number {
  const colon = hostWithPort.indexOf(':');
  return colon < 0 ? 0 : Number(hostWithPort.slice(colon + 1));
}

async function withClickHouse(name: string, run: (ch: ClickHouse) => Promise<void>): Promise<void> {
  const context = await openProcessContext({ name, say });
  const ch = createClickHouse(context.config);
  try {
    await run(ch);
  } finally {
    await ch.close();
    await context.shutdown.run();
  }
}

async function createKey(ch: ClickHouse, options: CreateOptions): Promise<void> {
  const minted = await mintUnusedKey(ch);
  const now = unixSeconds();
  await ch.insert('api_keys', [
    {
      key_id: minted.keyId,
      key_hash: minted.keyHash,
      name: options.name,
      domains: options.domain,
      rate_limit_per_minute: options.rateLimit ?? 0,
      created_at: now,
      revoked_at: null,
      updated_at: now,
    } satisfies ApiKeyRow,
  ]);
  // stdout holds the key alone, so `KEY=$(soulgraph apikey create ...)` captures just it.
  process.stdout.write(`${minted.key}\n`);
  say(`API key ${minted.keyId} for ${options.name}, domains ${options.domain.join(', ')}`);
  say('Store this key now: it will not be shown again (only its hash is kept).');
}

/**
 * A fresh key whose id is not taken: ids are 48 random bits, so a clash is very unlikely,
 * but one would silently replace another key's row (the table keeps one row per key_id).
 */
async function mintUnusedKey(ch: ClickHouse): Promise<ReturnType<typeof mintApiKey>> {
  for (;;) {
    const minted = mintApiKey();
    const taken = await ch.query(sql`SELECT key_id FROM api_keys WHERE key_id = ${minted.keyId} LIMIT 1`, z.object({ key_id: z.string() }));
    if (taken.length === 0) return minted;
  }
}

async function revokeKey(ch: ClickHouse, keyId: string): Promise<void> {
  const current = await readApiKeyRow(ch, keyId);
  if (!current) throw new UsageError(`no API key with id ${keyId} (see soulgraph apikey list)`);
  if (current.revoked_at !== null) {
    say(`API key ${keyId} (${current.name}) was already revoked at ${isoSeconds(current.revoked_at)}`);
    return;
  }
  const now = unixSeconds();
  // The newest updated_at wins in ReplacingMergeTree: strictly after the current row even
  // if this machine's clock is behind the one that wrote it.
  await ch.insert('api_keys', [{ ...current, revoked_at: now, updated_at: Math.max(now, current.updated_at + 1) }]);
  say(`API key ${keyId} (${current.name}) revoked; the API refuses it within APIKEY_CACHE_SECONDS`);
}

function keyTable(rows: ApiKeyRow[]): string[] {
  if (rows.length === 0) return ['No API keys (issue one with `soulgraph apikey create`).'];
  return formatTable([
    ['key id', 'name', 'domains', 'rate limit', 'created', 'status'],
    ...rows.map((r) => [
      r.key_id,
      r.name,
      r.domains.join(','),
      r.rate_limit_per_minute === 0 ? 'default' : `${r.rate_limit_per_minute}/min`,
      isoSeconds(r.created_at),
      r.revoked_at === null ? 'active' : 'revoked',
    ]),
  ]);
}

function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function isoSeconds(unix: number): string {
  return new Date(unix * 1000).toISOString().replace('.000Z', 'Z');
}
