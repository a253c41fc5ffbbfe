-- One page of a caller's recommendations from the serving copy (shared/serving.ts), answered
-- as the response's `list` is sent: api/served-lists.ts passes these bytes to the client
-- without parsing them. api/recommendation-list.ts writes the same list from ClickHouse rows;
-- test/integration/served-lists.test.ts holds the two to the same bytes.
--
-- KEYS: the list, the profiles hash, the caller's following hash.
-- ARGV: after (rank), limit, the social reason as a JSON string, then pairs of a chain id and
-- its counterparty reason as a JSON string.
-- Answers nil when there is no list, else one line "<m> <n> <read>" followed by the list's
-- JSON: m = 1 when ClickHouse holds more than the n stored entries; read = how many entries
-- were read after `after`, up to limit + 1 (one more than the page shows tells whether
-- another page exists).
--
-- Everything stored was written by JSON.stringify (or by ClickHouse, byte for byte the same:
-- test/integration/list-publisher.test.ts), so strings are copied into the answer as the
-- JSON tokens they are stored as, never decoded and encoded again: that keeps the spelling
-- JSON.stringify's (cjson would write '/' as '\/') and costs Redis a fraction of the time.

local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local after = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

-- Where the JSON string token that opens at s[i] ends: the first quote not escaped.
local function stringEnd(s, i)
  local j = i
  while true do
    j = string.find(s, '"', j + 1, true)
    if not j then return nil end
    local k = j - 1
    while string.byte(s, k) == 92 do k = k - 1 end
    if (j - 1 - k) % 2 == 0 then return j end
  end
end

-- A JSON string token's value, for use as a hash field.
local function value(token)
  if string.find(token, '\\', 1, true) then return cjson.decode(token) end
  return string.sub(token, 2, -2)
end

local function isString(token)
  return string.byte(token, 1) == 34 and stringEnd(token, 1) == #token
end

-- The list is a header line, then one entry per line: walk the newlines to the page and
-- keep only its lines. A list stored before that format (one JSON object, no newline) is
-- decoded whole and its page written as lines, until it expires.
local lines = {}
local from = string.find(raw, '\n', 1, true)
local header = cjson.decode(from and string.sub(raw, 1, from - 1) or raw)
local stored = header.n
if header.e then
  stored = #header.e
  local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
  local function escaped(c) return escapes[c] or string.format('\\u%04x', string.byte(c)) end
  local function quoted(s) return '"' .. string.gsub(s, '[%z\1-\31"\\]', escaped) .. '"' end
  for i = after + 1, math.min(after + limit + 1, stored) do
    local e = header.e[i]
    lines[#lines + 1] = '[' .. quoted(e[1]) .. ',' .. e[2] .. ',' .. e[3] .. ',' .. quoted(e[4]) .. ']'
  end
else
  local line = 0
  while from and line < after + limit + 1 do
    local to = string.find(raw, '\n', from + 1, true)
    line = line + 1
    if line > after then lines[#lines + 1] = string.sub(raw, from + 1, (to or 0) - 1) end
    from = to
  end
end

local status = string.format('%d %d %d\n', header.m, stored, #lines)
local shown = math.min(#lines, limit)
if shown == 0 then return status .. '[]' end

-- An entry's parts as JSON tokens: [candidateId, reasonKind 1..4, reasonChainId,
-- reasonSubject]; nil for anything else.
local function entryParts(line)
  -- The common entry, whose strings hold nothing escaped, in one match; any other the long way.
  local candidate, kind, chain, subject = string.match(line, '^%[("[^"\\]*"),([1-4]),(%d+),("[^"\\]*")%]$')
  if candidate then return candidate, kind, chain, subject end
  local close = string.byte(line, 1) == 91 and string.byte(line, 2) == 34 and stringEnd(line, 2)
  if not close then return nil end
  kind, chain, subject = string.match(line, '^,([1-4]),(%d+),(".*")%]$', close + 1)
  if not subject or not isString(subject) then return nil end
  return string.sub(line, 2, close), kind, chain, subject
end

-- A profile summary's name and avatar as JSON tokens ('""' for null): the summary is
-- [updatedAt, name, avatar], name and avatar strings or null; nil for anything else.
local function summaryTokens(s)
  local name, avatar = string.match(s, '^%[%d+,("[^"\\]*"),("[^"\\]*")%]$')
  if name then return name, avatar end
  local at = string.match(s, '^%[%-?%d[%d%.eE%+%-]*(),')
  if not at then return nil end
  if string.sub(s, at + 1, at + 4) == 'null' then
    name, at = '""', at + 5
  else
    local close = string.byte(s, at + 1) == 34 and stringEnd(s, at + 1)
    if not close then return nil end
    name, at = string.sub(s, at + 1, close), close + 1
  end
  if string.byte(s, at) ~= 44 or string.byte(s, -1) ~= 93 then return nil end
  avatar = string.sub(s, at + 1, -2)
  if avatar == 'null' then return name, '""' end
  if isString(avatar) then return name, avatar end
  return nil
end

-- Anything malformed fails the request loudly rather than serving a wrong page.
local candidates, candidateIds, kinds, chains, subjects, friendIds, ids = {}, {}, {}, {}, {}, {}, {}
for i = 1, shown do
  local candidate, kind, chain, subject = entryParts(lines[i])
  if not candidate then error('malformed entry at rank ' .. (after + i)) end
  candidates[i], kinds[i], chains[i], subjects[i] = candidate, kind, chain, subject
  candidateIds[i] = value(candidate)
  ids[#ids + 1] = candidateIds[i]
  -- A friend-of-friend reason names the friend.
  if kind == '4' then
    friendIds[i] = value(subject)
    ids[#ids + 1] = friendIds[i]
  end
end

local summaries = redis.call('HMGET', KEYS[2], unpack(ids))
local names, avatars = {}, {}
for i = 1, #ids do
  if summaries[i] then
    local name, avatar = summaryTokens(summaries[i])
    if not name then error('malformed profile summary of ' .. ids[i]) end
    names[ids[i]], avatars[ids[i]] = name, avatar
  end
end

-- A follow state's low bit is `active`.
local states = redis.call('HMGET', KEYS[3], unpack(candidateIds))

local counterparty = {}
for i = 4, #ARGV - 1, 2 do counterparty[ARGV[i]] = ARGV[i + 1] end

local items = {}
for i = 1, shown do
  local kind, subject, reason = kinds[i], subjects[i]
  if kind == '1' then
    reason = ARGV[3]
  elseif kind == '2' then
    reason = counterparty[chains[i]] or ('"Counterparty on chain ' .. chains[i] .. '"')
  elseif kind == '3' then
    reason = '"Holder of ' .. string.sub(subject, 2)
  else
    local friend = names[friendIds[i]]
    reason = '"Followed by ' .. string.sub((friend and friend ~= '""') and friend or subject, 2)
  end
  local state = states[i] and tonumber(states[i])
  items[i] = '{"profileId":' .. candidates[i] .. ',"name":' .. (names[candidateIds[i]] or '""') .. ',"avatar":' .. (avatars[candidateIds[i]] or '""')
    .. ',"recommendReason":' .. reason .. ',"following":' .. ((state and state % 2 == 1) and 'true' or 'false') .. '}'
end
return status .. '[' .. table.concat(items, ',') .. ']'
