/**
 * Field schemas shared by the canonical record kinds. Each one accepts what a data
 * engineer's export plausibly contains and yields the stored form:
 * lowercase addresses, lowercase handles, decimal strings for big integers, and
 * DateTime values as unix seconds (timezone-independent on every ClickHouse version).
 */
import { z } from 'zod';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const UINT64_MAX = 18446744073709551615n;

/** Blank CSV cells mean "absent". */
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

export const address = z
  .string()
  .trim()
  .regex(ADDRESS, 'must be a 0x-prefixed 20-byte hex address')
  .transform((a) => a.toLowerCase());

/** Contract creations have no `to`; stored as ''. */
export const optionalAddress = z.preprocess(blankToUndefined, address.optional()).transform((a) => a ?? '');

export const txHash = z
  .string()
  .trim()
  .regex(TX_HASH, 'must be a 0x-prefixed 32-byte hex hash')
  .transform((h) => h.toLowerCase());

/** Unsigned big integer (wei, token id) as a canonical decimal string. Numbers are accepted while exact. */
export const decimalString = z
  .union([z.string(), z.number(), z.bigint()])
  .transform((v, ctx) => {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) {
      ctx.addIssue({ code: 'custom', message: 'must be an exact integer; send big values as decimal strings' });
      return z.NEVER;
    }
    const text = String(v).trim();
    if (!DECIMAL.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative decimal integer without leading zeros' });
      return z.NEVER;
    }
    return text;
  });

/** A decimal string that must also fit ClickHouse UInt64 (NFT amounts). */
export const uint64String = decimalString.refine((v) => BigInt(v) <= UINT64_MAX, 'must fit in 64 bits');

/**
 * An integer given as a JSON number or as text (CSV cells). Blank text and null are absent,
 * never 0 (z.coerce.number would read '' and null as 0).
 */
function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : Number(v)) : v),
    z.number().int('must be an integer').min(min).max(max),
  );
}

export const chainId = integer(1, 4_294_967_295);
export const blockNumber = integer(0);
export const logIndex = integer(0, 4_294_967_295);

/**
 * A point in time: ISO 8601 text, unix seconds (number or digits), or unix milliseconds
 * (13 digits). Yields unix seconds.
 */
export const timestamp = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const seconds = toUnixSeconds(v);
  if (seconds === undefined || seconds < 0 || seconds > 4_294_967_295) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or unix seconds' });
    return z.NEVER;
  }
  return seconds;
});

export const optionalTimestamp = z.preprocess(blankToUndefined, timestamp.optional());

function toUnixSeconds(v: string | number): number | undefined {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return undefined;
    // 13 digits are milliseconds, as for digit text (Date.now() in a JSON export).
    return v >= 1e12 && v < 1e13 ? Math.floor(v / 1000) : v;
  }
  const text = v.trim();
  if (/^\d{1,12}$/.test(text)) return Number(text);
  if (/^\d{13}$/.test(text)) return Math.floor(Number(text) / 1000);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  // A date-time without a zone is read as UTC, never as the machine's local time.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text) || text.length === 10 ? text : `${text}Z`;
  const ms = Date.parse(withZone.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Social network handle; compared case-insensitively, so stored lowercase. A leading @ is dropped. */
export const socialHandle = z
  .string()
  .trim()
  .transform((h) => h.replace(/^@/, ''))
  .pipe(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, _ . or -'))
  .transform((h) => h.toLowerCase());

/** Identifiers we mint or receive (profile ids, game-platform ids): printable, no spaces. */
export const identifier = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.:@-]{1,128}$/, 'must be 1-128 characters of letters, digits, _ . : @ or -');

export const text = (max: number) => z.preprocess((v) => v ?? '', z.string().max(max));

/** Free text that is optional on input and '' when stored. */
export const optionalText = (max: number) => text(max).transform((s) => s.trim());

/** An http(s) or ipfs URL, or ''. */
export const optionalUrl = optionalText(2048).refine(
  (u) => u === '' || /^(https?|ipfs):\/\/\S+$/i.test(u),
  'must be an http(s):// or ipfs:// URL',
);

/**
 * A list given as a JSON array, or in a CSV cell as values separated by `|`.
 * Empty cell = empty list.
 */
export function list<T extends z.ZodType>(item: T, max: number) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.split('|').map((s) => s.trim()).filter(Boolean) : (v ?? [])),
    z.array(item).max(max),
  );
}

