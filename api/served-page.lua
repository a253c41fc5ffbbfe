-- One page of a caller's recommendations from the serving copy (shared/serving.ts), answered
-- as the response's `list` is sent: api/served-lists.ts passes these bytes to the client
-- without parsing them. api/recommendation-list.ts writes the same list from ClickHouse rows;
-- test/integration/served-lists.test.ts holds the two to the same bytes.
--
-- KEYS: the list, the profiles hash, the caller's following hash.
-- ARGV: after (rank), limit, the social network's name, then chain id and name pairs.
-- Answers nil when there is no list, else one line "<m> <n> <read>" followed by the list's
-- JSON: m = 1 when ClickHouse holds more than the n stored entries; read = how many entries
-- were read after `after`, up to limit + 1 (one more than the page shows tells whether
-- another page exists).

local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local after = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

-- The list is a header line, then one entry per line: walk the newlines to the page and
-- decode only its entries. A list stored before that format (one JSON object, no newline)
-- is decoded whole, until it expires.
local entries = {}
local from = string.find(raw, '\n', 1, true)
local header = cjson.decode(from and string.sub(raw, 1, from - 1) or raw)
local stored = header.n
if header.e then
  stored = #header.e
  for i = after + 1, math.min(after + limit + 1, stored) do entries[#entries + 1] = header.e[i] end
else
  local line = 0
  while from and line < after + limit + 1 do
    local to = string.find(raw, '\n', from + 1, true)
    line = line + 1
    if line > after then entries[#entries + 1] = cjson.decode(string.sub(raw, from + 1, (to or 0) - 1)) end
    from = to
  end
end

local status = string.format('%d %d %d\n', header.m, stored, #entries)
local shown = math.min(#entries, limit)
if shown == 0 then return status .. '[]' end

-- An entry is [candidateId, reasonKind 1..4, reasonChainId, reasonSubject]; anything else
-- fails the request loudly rather than serving a wrong page.
local candidates, ids = {}, {}
for i = 1, shown do
  local e = entries[i]
  if type(e) ~= 'table' or type(e[1]) ~= 'string' or type(e[3]) ~= 'number' or type(e[4]) ~= 'string'
    or not (e[2] == 1 or e[2] == 2 or e[2] == 3 or e[2] == 4) then
    error('malformed entry at rank ' .. (after + i))
  end
  candidates[i] = e[1]
  ids[#ids + 1] = e[1]
  -- A friend-of-friend reason names the friend.
  if e[2] == 4 then ids[#ids + 1] = e[4] end
end

-- Summaries are [updatedAt, name, avatar]; a follow state's low bit is `active`.
local summaries = redis.call('HMGET', KEYS[2], unpack(ids))
local states = redis.call('HMGET', KEYS[3], unpack(candidates))
local names, avatars = {}, {}
for i = 1, #ids do
  if summaries[i] then
    local s = cjson.decode(summaries[i])
    if type(s) ~= 'table' or type(s[1]) ~= 'number' or not (type(s[2]) == 'string' or s[2] == cjson.null)
      or not (type(s[3]) == 'string' or s[3] == cjson.null) then
      error('malformed profile summary of ' .. ids[i])
    end
    names[ids[i]] = type(s[2]) == 'string' and s[2] or ''
    avatars[ids[i]] = type(s[3]) == 'string' and s[3] or ''
  end
end

local chains = {}
for i = 4, #ARGV - 1, 2 do chains[ARGV[i]] = ARGV[i + 1] end

-- Strings spelled as JSON.stringify spells them (cjson would write '/' as '\/'), so that
-- both writers of the list send the same bytes.
local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function escaped(c) return escapes[c] or string.format('\\u%04x', string.byte(c)) end
local function quoted(s) return '"' .. string.gsub(s, '[%z\1-\31"\\]', escaped) .. '"' end

local function reason(e)
  if e[2] == 1 then return 'Following on ' .. ARGV[3] end
  if e[2] == 2 then
    local chain = string.format('%d', e[3])
    return 'Counterparty on ' .. (chains[chain] or ('chain ' .. chain))
  end
  if e[2] == 3 then return 'Holder of ' .. e[4] end
  local friend = names[e[4]]
  return 'Followed by ' .. ((friend and friend ~= '') and friend or e[4])
end

local items = {}
for i = 1, shown do
  local e = entries[i]
  local state = states[i] and tonumber(states[i])
  items[i] = '{"profileId":' .. quoted(e[1])
    .. ',"name":' .. quoted(names[e[1]] or '')
    .. ',"avatar":' .. quoted(avatars[e[1]] or '')
    .. ',"recommendReason":' .. quoted(reason(e))
    .. ',"following":' .. ((state and state % 2 == 1) and 'true' or 'false') .. '}'
end
return status .. '[' .. table.concat(items, ',') .. ']'
