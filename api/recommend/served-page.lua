-- One page of a caller's stored list (shared/serving.ts, encodeServedList) with what the page
-- needs from the mirrors, in one round trip; api/recommend/served-lists.ts decodes the answer and the
-- route encodes the page. This script reads data and returns data: it writes no JSON.
--
-- KEYS: the list, the profiles hash, the caller's following hash; on a Redis Cluster only the
-- list (the hashes are in other slots: served-lists.ts reads them next, with the ids this returns).
-- ARGV: after (rank), limit.
-- Answers nil when there is no list, else
--   { header line, entry lines (up to limit + 1 after `after`), ids, their summaries,
--     the follow states of the page's candidates }
-- where ids are the page's candidates, then each friend a friend-of-friend reason names
-- (summaries and states empty when only the list was given).

local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local after = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

-- One entry per line after the header: walk the newlines to the page, keep only its lines
-- (one more than the page shows tells whether another page exists).
local from = string.find(raw, '\n', 1, true)
local header = string.sub(raw, 1, (from or 0) - 1)
local lines = {}
local line = 0
while from and line < after + limit + 1 do
  local to = string.find(raw, '\n', from + 1, true)
  line = line + 1
  if line > after then lines[#lines + 1] = string.sub(raw, from + 1, (to or 0) - 1) end
  from = to
end

-- Profile ids are identifiers, held in the line as they are: candidate first, the subject last.
local candidates, ids = {}, {}
for i = 1, math.min(#lines, limit) do
  local candidate, kind, subject = string.match(lines[i], '^([^\t]+)\t([1-7])\t%d+\t([^\t]*)$')
  if not candidate then return redis.error_reply('malformed entry at rank ' .. (after + i)) end
  candidates[i] = candidate
  ids[#ids + 1] = candidate
  if kind == '4' then ids[#ids + 1] = subject end
end

if #candidates == 0 or #KEYS == 1 then return { header, lines, ids, {}, {} } end
return { header, lines, ids, redis.call('HMGET', KEYS[2], unpack(ids)), redis.call('HMGET', KEYS[3], unpack(candidates)) }
