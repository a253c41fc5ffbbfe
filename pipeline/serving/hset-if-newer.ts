/**
 * "Newest wins" for the mirrors' hash fields, inside Redis, exactly as ReplacingMergeTree
 * does in ClickHouse: a field is set only if its stored value's version (its leading
 * digits, after an optional '[') is not newer than the one written. Among writes to the
 * same field in one call, the newest wins too (the later one on a tie).
 *
 * A hash's writes travel packed in one argument (field, version and value, each followed
 * by SEPARATOR), and Redis is called twice per hash and thousand fields (HMGET, then one
 * HSET of the winners), not twice per field: a nightly full re-sync of 5 M follows spent
 * most of its time encoding arguments in Node and calling Redis from Lua field by field.
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../shared/redis.ts';

/**
 * Ends each field, version and value in a packed argument. None contains it: fields are
 * profile ids (identifiers: letters, digits and `_.:@-`), versions digits, and values
 * digits or JSON, which escapes every control character.
 */
export const SEPARATOR = '\x01';

/** One field to write: `version` orders the states of the field; `value` is stored. */
export interface MirrorWrite {
  hash: string;
  field: string;
  version: number;
  value: string | number;
}

/** A hash's writes, `count` (field SEPARATOR version SEPARATOR value SEPARATOR) triples in `packed`. */
export interface PackedWrites {
  hash: string;
  count: number;
  packed: string;
}

/** KEYS: the hashes. ARGV[k]: the packed writes of KEYS[k]. */
const HSET_IF_NEWER = `
local CHUNK = 1000
for k = 1, #KEYS do
  local key = KEYS[k]
  local fields, versions, values = {}, {}, {}
  for f, v, x in string.gmatch(ARGV[k], '([^\\1]*)\\1([^\\1]*)\\1([^\\1]*)\\1') do
    fields[#fields + 1] = f
    versions[#versions + 1] = tonumber(v)
    values[#values + 1] = x
  end
  -- The newest write of each field in this call (the later one on a tie).
  local winner = {}
  for j = 1, #fields do
    local w = winner[fields[j]]
    if w == nil or versions[w] <= versions[j] then winner[fields[j]] = j end
  end
  local chosen = {}
  for j = 1, #fields do
    if winner[fields[j]] == j then chosen[#chosen + 1] = j end
  end
  -- Against what Redis holds (nothing, for a hash it does not have: a flushed Redis's full
  -- re-sync), CHUNK fields at a time (unpack has a limit).
  local exists = redis.call('EXISTS', key) == 1
  for from = 1, #chosen, CHUNK do
    local to = math.min(from + CHUNK - 1, #chosen)
    local stored = {}
    if exists then
      local names = {}
      for i = from, to do names[#names + 1] = fields[chosen[i]] end
      stored = redis.call('HMGET', key, unpack(names))
    end
    local writes = {}
    for i = from, to do
      local j = chosen[i]
      local s = stored[i - from + 1]
      if (not s) or tonumber(string.match(s, '^%[?(%d+)')) <= versions[j] then
        writes[#writes + 1] = fields[j]
        writes[#writes + 1] = values[j]
      end
    end
    if #writes > 0 then redis.call('HSET', key, unpack(writes)) end
  end
end
return #KEYS`;

type RedisWithScript = RedisClient & {
  hsetIfNewer(keys: number, ...args: string[]): Promise<number>;
  hsetIfNewerOneHash(hash: string, packed: string): Promise<number>;
};

/** Writes per script call: long enough to amortise the round trip, short enough not to stall Redis for the API. */
const WRITES_PER_CALL = 5_000;

export interface HsetIfNewer {
  /** Writes already packed per hash (a hash may come in several). */
  packed(groups: readonly PackedWrites[]): Promise<void>;
  writes(writes: readonly MirrorWrite[]): Promise<void>;
}

export function hsetIfNewer(redis: RedisClient): HsetIfNewer {
  const scripted = redis as RedisWithScript;
  scripted.defineCommand('hsetIfNewer', { lua: HSET_IF_NEWER });
  // One key declared as such: a cluster client routes (and auto-pipelines) a command by its
  // first argument, which for the variadic form is the number of keys.
  scripted.defineCommand('hsetIfNewerOneHash', { numberOfKeys: 1, lua: HSET_IF_NEWER });
  // A script on a Redis Cluster touches one slot: one call per hash there, sent together.
  const call =
    redis instanceof Cluster
      ? (groups: readonly PackedWrites[]) => Promise.all(groups.map((g) => scripted.hsetIfNewerOneHash(g.hash, g.packed)))
      : (groups: readonly PackedWrites[]) => scripted.hsetIfNewer(groups.length, ...groups.map((g) => g.hash), ...groups.map((g) => g.packed));

  const packed = async (groups: readonly PackedWrites[]) => {
    let batch: PackedWrites[] = [];
    let count = 0;
    for (const group of groups) {
      batch.push(group);
      count += group.count;
      if (count >= WRITES_PER_CALL) {
        await call(batch);
        batch = [];
        count = 0;
      }
    }
    if (batch.length > 0) await call(batch);
  };
  return { packed, writes: (writes) => packed(packWrites(writes)) };
}

/** Groups writes by hash, packed. */
export function packWrites(writes: readonly MirrorWrite[]): PackedWrites[] {
  const byHash = new Map<string, PackedWrites>();
  for (const w of writes) {
    let group = byHash.get(w.hash);
    if (!group) byHash.set(w.hash, (group = { hash: w.hash, count: 0, packed: '' }));
    group.count++;
    group.packed += `${w.field}${SEPARATOR}${w.version}${SEPARATOR}${w.value}${SEPARATOR}`;
  }
  return [...byHash.values()];
}
