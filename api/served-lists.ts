/**
 * Reads one page of a caller's recommendations from the serving copy in Redis
 * (shared/serving.ts) in one round trip: a Lua script slices the stored list and looks up,
 * in the same step, the names of everyone on the page and whom of them the caller follows.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { servedEntrySchema, servingKeys, type ServedEntry } from '../shared/serving.ts';

/**
 * KEYS: list, profiles hash, caller's following hash. ARGV: after (rank), count.
 * Returns nil when there is no list, else JSON {m, n, e: entries after `after` (at most
 * count), ids, p: [profile summary per id in `ids`, or null], f: [follow state per entry]}.
 * The list is stored a line per entry (shared/serving.ts, encodeServedList): the script
 * walks its newlines to the page and decodes only the page's entries, which it then splices
 * into the answer as they are stored; the summaries are JSON already and are spliced in
 * too, so that the API parses one document per page. A list stored before that format (one
 * JSON object, no newline) is still read, by decoding it whole, until it expires.
 */
const READ_PAGE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local after = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local page = {}
local ids = {}
local candidates = {}
local function take(text, entry)
  page[#page + 1] = text
  candidates[#candidates + 1] = entry[1]
  ids[#ids + 1] = entry[1]
  if entry[2] == 4 then ids[#ids + 1] = entry[4] end
end
local from = string.find(raw, '\\n', 1, true)
local header = cjson.decode(from and string.sub(raw, 1, from - 1) or raw)
local n = header.n
if header.e then
  n = #header.e
  for i = after + 1, math.min(after + count, n) do take(cjson.encode(header.e[i]), header.e[i]) end
else
  local line = 0
  while from and line < after + count do
    local to = string.find(raw, '\\n', from + 1, true)
    line = line + 1
    if line > after then
      local text = string.sub(raw, from + 1, (to or 0) - 1)
      take(text, cjson.decode(text))
    end
    from = to
  end
end
local summaries = {}
local following = {}
if #page > 0 then
  summaries = redis.call('HMGET', KEYS[2], unpack(ids))
  following = redis.call('HMGET', KEYS[3], unpack(candidates))
end
for i = 1, #ids do if not summaries[i] then summaries[i] = 'null' end end
for i = 1, #candidates do if not following[i] then following[i] = cjson.null end end
-- cjson encodes an empty table as {}: empty pages are spelled out.
if #page == 0 then
  return '{"m":' .. header.m .. ',"n":' .. n .. ',"e":[],"ids":[],"p":[],"f":[]}'
end
return '{"m":' .. header.m .. ',"n":' .. n .. ',"e":[' .. table.concat(page, ',') .. '],"ids":' .. cjson.encode(ids)
  .. ',"p":[' .. table.concat(summaries, ',') .. '],"f":' .. cjson.encode(following) .. '}'`;

/** A profile summary in the mirror: [updatedAt, name, avatar]. */
const summarySchema = z.tuple([z.number(), z.string().nullable(), z.string().nullable()]);

/** What the script answers: the contract `decodePage` checks. */
export const servedPageSchema = z.object({
  m: z.union([z.literal(0), z.literal(1)]),
  n: z.number().int(),
  e: z.array(servedEntrySchema),
  ids: z.array(z.string()),
  p: z.array(summarySchema.nullable()),
  f: z.array(z.string().nullable()),
});
type ServedPageDocument = z.infer<typeof servedPageSchema>;

/**
 * The script's answer, checked against servedPageSchema by hand: every page of every
 * request passes here, and zod's generic walk over ~20 entries costs more than the JSON.parse
 * (test/unit/served-page.test.ts holds the two to the same verdicts). Throws on anything else.
 */
export function decodePage(raw: string): ServedPageDocument {
  const doc = JSON.parse(raw) as Partial<Record<keyof ServedPageDocument, unknown>> | null;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return malformed('not an object');
  const { m, n, e, ids, p, f } = doc;
  if (m !== 0 && m !== 1) return malformed('m');
  if (!Number.isSafeInteger(n)) return malformed('n');
  if (!Array.isArray(e) || !e.every(isServedEntry)) return malformed('e');
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return malformed('ids');
  if (!Array.isArray(p) || !p.every((summary) => summary === null || isSummary(summary))) return malformed('p');
  if (!Array.isArray(f) || !f.every((state) => state === null || typeof state === 'string')) return malformed('f');
  return { m, n: n as number, e, ids, p, f };
}

function isServedEntry(entry: unknown): entry is ServedEntry {
  if (!Array.isArray(entry) || entry.length !== 4) return false;
  const [candidate, kind, chainId, subject] = entry as unknown[];
  return (
    typeof candidate === 'string' &&
    Number.isSafeInteger(kind) && (kind as number) >= 1 && (kind as number) <= 4 &&
    Number.isSafeInteger(chainId) && (chainId as number) >= 0 &&
    typeof subject === 'string'
  );
}

function isSummary(summary: unknown): summary is z.infer<typeof summarySchema> {
  if (!Array.isArray(summary) || summary.length !== 3) return false;
  const [updatedAt, name, avatar] = summary as unknown[];
  return (
    typeof updatedAt === 'number' && Number.isFinite(updatedAt) &&
    (name === null || typeof name === 'string') &&
    (avatar === null || typeof avatar === 'string')
  );
}

function malformed(field: string): never {
  throw new Error(`the serving copy answered a malformed page (${field})`);
}

export interface ServedPage {
  /** Entries ranked after..after+count. */
  entries: ServedEntry[];
  /** How many entries the stored list has, and whether ClickHouse holds more than those. */
  stored: number;
  more: boolean;
  names: Map<string, { name: string; avatar: string }>;
  /** Candidates of the page the caller follows now. */
  following: Set<string>;
}

export interface ServedLists {
  /** The page, or undefined when the serving copy has no list for this profile and snapshot. */
  page(snapshotId: number, profileId: string, after: number, count: number): Promise<ServedPage | undefined>;
  /** Whether the list exists (the on-demand computation writes it). */
  exists(snapshotId: number, profileId: string): Promise<boolean>;
}

type RedisWithPage = Redis & { readServedPage(...args: (string | number)[]): Promise<string | null> };

export function createServedLists(redis: Redis, queuePrefix: string): ServedLists {
  const keys = servingKeys(queuePrefix);
  const client = redis as RedisWithPage;
  client.defineCommand('readServedPage', { numberOfKeys: 3, lua: READ_PAGE });
  return {
    async page(snapshotId, profileId, after, count) {
      const raw = await client.readServedPage(keys.list(snapshotId, profileId), keys.profiles, keys.following(profileId), after, count);
      if (raw === null) return undefined;
      const page = decodePage(raw);
      // Plain loops: this runs for every page, and callbacks and intermediate arrays are garbage.
      const names = new Map<string, { name: string; avatar: string }>();
      for (let i = 0; i < page.ids.length; i++) {
        const summary = page.p[i];
        if (summary) names.set(page.ids[i]!, { name: summary[1] ?? '', avatar: summary[2] ?? '' });
      }
      // A follow state's low bit is `active` (shared/serving.ts).
      const following = new Set<string>();
      for (let i = 0; i < page.e.length; i++) if (Number(page.f[i] ?? 0) % 2 === 1) following.add(page.e[i]![0]);
      return { entries: page.e, stored: page.n, more: page.m === 1, names, following };
    },
    async exists(snapshotId, profileId) {
      return (await redis.exists(keys.list(snapshotId, profileId))) === 1;
    },
  };
}
