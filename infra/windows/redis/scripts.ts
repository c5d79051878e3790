/**
 * Lua scripts of the Redis window store: each runs atomically, in one round trip. Layout of an entity's hash (series names arrive escaped, so they hold no ':'):
 *   <series>:<bucket>  value of a bucket          <series>:t  running total of the live buckets
 *   <series>:n         number of live buckets     <series>:l  no live bucket is below this
 *   <series>:m         stored maximum of a max series
 * Sums add whole deltas to whole values with HINCRBY and the rest with HINCRBYFLOAT: Redis adds in
 * long double and stores the result rounded to 17 decimal places, so integer counts stay exact and
 * decimal amounts do not gather binary noise.
 */

/**
 * Event ids of a scope (layout in index.ts): per time slot a meta hash and bucket hashes whose
 * fields are 8-byte digests, valued 0 (reserved by intake), 1 (applied), or on a Redis Cluster
 * `p` and 8 bytes for the moment between the steps of an apply (ONCE_BEGIN). A bucket holds a
 * few dozen ids at most: a small listpack (about 12 bytes an id), which HGET scans from the start,
 * so its cost grows with the bucket. The number of buckets follows the traffic: a slot holds
 * generations of buckets, `b<g>` buckets in generation g and `n<g>` ids added to it. The first
 * generation is sized from the previous slot's ids (16 a bucket); a generation that reaches 24 ids
 * a bucket is closed and the next one gets four times its buckets. An id stays in the bucket it was
 * added to, so a lookup searches every generation of every slot of the window: one generation a
 * slot at a steady rate, a few while the rate climbs.
 * The meta hash also keeps `e`, the latest expiry asked of the slot, which its keys get.
 * A grid is `base first last expireAt`: the meta key of slot s is base .. s.
 * Lua in Redis pays for every call and every number turned into a string, so a script call reads
 * each slot's meta hash once, keeps its key prefixes, and writes the counts it changed at the end
 * (flushCounts): a lookup is one string and one HGET a generation, an addition HSET and PEXPIREAT.
 */
const IDS = `
local slots = {}

-- A slot's generations (bucket counts, oldest first), their key prefixes, the ids in the newest
-- (n, written back by flushCounts when dirty) and its expiry, read once a script call.
local function slotOf(meta)
  local slot = slots[meta]
  if slot == nil then
    local m = redis.call('HGETALL', meta)
    local f = {}
    for i = 1, #m, 2 do f[m[i]] = m[i + 1] end
    local g = tonumber(f.g) or 0
    slot = { meta = meta, gens = {}, prefixes = {}, e = tonumber(f.e) or 0, n = tonumber(f['n' .. g]) or 0, dirty = false }
    for i = 1, g do
      slot.gens[i] = tonumber(f['b' .. i])
      slot.prefixes[i] = meta .. ':' .. i .. ':'
    end
    slots[meta] = slot
  end
  return slot
end

local function flushCounts()
  for meta, slot in pairs(slots) do
    if slot.dirty then redis.call('HSET', meta, 'n' .. #slot.gens, slot.n) end
  end
end

-- The slots of a grid, newest first.
local function gridOf(base, first, last, expireAt)
  local list = {}
  for s = last, first, -1 do list[#list + 1] = slotOf(base .. string.format('%d', s)) end
  return { slots = list, expireAt = expireAt, base = base, last = last }
end

-- A digest's bucket pick (4 bytes) and stored field (8 bytes).
local function split(d)
  local a, b, c, e = string.byte(d, 1, 4)
  return ((a * 256 + b) * 256 + c) * 256 + e, string.sub(d, 5, 12)
end

-- Answers the bucket key holding the id (x, f) and its value, or nil.
local function findId(grid, x, f)
  for _, slot in ipairs(grid.slots) do
    local gens = slot.gens
    for g = #gens, 1, -1 do
      local k = slot.prefixes[g] .. (x % gens[g])
      local v = redis.call('HGET', k, f)
      if v then return k, v end
    end
  end
  return nil
end

-- Buckets of a first generation: 16 ids a bucket at the previous slot's count.
local function firstBuckets(before)
  local seen = 0
  local prev = redis.call('HGETALL', before)
  for i = 1, #prev, 2 do
    if string.sub(prev[i], 1, 1) == 'n' then seen = seen + tonumber(prev[i + 1]) end
  end
  local b = 1
  while b * 16 < seen and b < 4194304 do b = b * 2 end
  return b
end

-- Adds the id (x, f) to the grid's newest slot; its keys expire at the latest expiry any call asked of the slot.
local function addId(grid, x, f, value)
  local slot = grid.slots[1]
  local gens = slot.gens
  local g = #gens
  if g == 0 or slot.n >= 24 * gens[g] then
    if slot.dirty then redis.call('HSET', slot.meta, 'n' .. g, slot.n) end
    local b = g == 0 and firstBuckets(grid.base .. string.format('%d', grid.last - 1)) or gens[g] * 4
    g = g + 1
    gens[g] = b
    slot.prefixes[g] = slot.meta .. ':' .. g .. ':'
    slot.n = 0
    redis.call('HSET', slot.meta, 'g', g, 'b' .. g, b)
  end
  slot.n = slot.n + 1
  slot.dirty = true
  if grid.expireAt > slot.e then
    slot.e = grid.expireAt
    redis.call('HSET', slot.meta, 'e', slot.e)
    redis.call('PEXPIREAT', slot.meta, slot.e)
  end
  local k = slot.prefixes[g] .. (x % gens[g])
  redis.call('HSET', k, f, value)
  redis.call('PEXPIREAT', k, slot.e)
end
`;

/**
 * Evicts buckets below `floor` from series `s` of hash `h`. A small step up from `l` probes the
 * buckets one by one; a large one (an idle entity) scans the hash once. When no bucket is left
 * the series' fields go, so its total restarts from an exact zero. Answers the lowest live bucket
 * after it, nil when the series holds none.
 */
const EVICT = `
local function negate(v)
  if string.sub(v, 1, 1) == '-' then return string.sub(v, 2) end
  return '-' .. v
end

-- Adds an integer delta to an integer field with HINCRBY, a third of HINCRBYFLOAT's cost (counts
-- always, sums of whole amounts); answers false, changing nothing, for any other delta or value.
local function addInteger(h, f, delta)
  if string.find(delta, '[.eEnN]') then return false end
  return type(redis.pcall('HINCRBY', h, f, delta)) == 'number'
end

local function add(h, f, delta)
  if not addInteger(h, f, delta) then redis.call('HINCRBYFLOAT', h, f, delta) end
end

local function evict(h, s, floor)
  local lo = tonumber(redis.call('HGET', h, s .. ':l'))
  if not lo or floor <= lo then return lo end
  local fields, values = {}, {}
  if floor - lo <= 64 then
    for b = lo, floor - 1 do
      local f = s .. ':' .. string.format('%d', b)
      local v = redis.call('HGET', h, f)
      if v then fields[#fields + 1] = f; values[#values + 1] = v end
    end
  else
    local prefix = s .. ':'
    local all = redis.call('HGETALL', h)
    for i = 1, #all, 2 do
      local f = all[i]
      if string.sub(f, 1, #prefix) == prefix then
        local b = tonumber(string.sub(f, #prefix + 1))
        if b and b < floor then fields[#fields + 1] = f; values[#values + 1] = all[i + 1] end
      end
    end
  end
  local n = tonumber(redis.call('HGET', h, s .. ':n')) - #fields
  for _, f in ipairs(fields) do redis.call('HDEL', h, f) end
  if n <= 0 then
    redis.call('HDEL', h, s .. ':n', s .. ':t', s .. ':l')
    return nil
  end
  for _, v in ipairs(values) do add(h, s .. ':t', negate(v)) end
  redis.call('HSET', h, s .. ':n', string.format('%d', n), s .. ':l', string.format('%d', floor))
  return floor
end
`;

/**
 * Updates of one entity hash: `applyUpdates(h, a, count)` applies the `count` updates whose
 * arguments begin at ARGV[a], two per update: the series, and `s,<bucket>,<delta>,<floor>` or
 * `m,<value>`. Numbers travel packed: the client pays per argument, and one string.match unpacks them.
 */
const UPDATES = `${EVICT}
local function sum(h, s, bucketArg, delta, floorArg)
  local floor = tonumber(floorArg)
  local lo = evict(h, s, floor)
  local bucket = tonumber(bucketArg)
  if bucket < floor then return end
  local f = s .. ':' .. bucketArg
  if redis.call('HSETNX', h, f, '0') == 1 then
    redis.call('HINCRBY', h, s .. ':n', 1)
    if not lo or bucket < lo then redis.call('HSET', h, s .. ':l', bucketArg) end
  end
  -- A bucket that holds a fraction makes its total hold one too: no second failed HINCRBY.
  if addInteger(h, f, delta) then add(h, s .. ':t', delta)
  else
    redis.call('HINCRBYFLOAT', h, f, delta)
    redis.call('HINCRBYFLOAT', h, s .. ':t', delta)
  end
end

local function max(h, s, value)
  local cur = redis.call('HGET', h, s .. ':m')
  if not cur or tonumber(cur) < tonumber(value) then redis.call('HSET', h, s .. ':m', value) end
end

local function applyUpdates(h, a, count)
  for i = a, a + 2 * (count - 1), 2 do
    local spec = ARGV[i + 1]
    if string.byte(spec, 1) == 115 then
      sum(h, ARGV[i], string.match(spec, '^s,([^,]+),([^,]+),([^,]+)$'))
    else
      max(h, ARGV[i], string.sub(spec, 3))
    end
  end
end
`;

/**
 * Applies several requests in order, each atomically as below, all in one script (one round trip
 * and one script call for the lot; one server only, as it touches keys of many slots). KEYS one
 * entity hash per request. ARGV[1] idle TTL in ms, ARGV[2] the number of id grids g, then g times
 * `base first last expireAt` (see IDS); then per request `<grid index or empty>,<number of updates>`,
 * the event id's digest when there is a grid, and the updates (see UPDATES).
 * Answers one number per request: 1 applied, 0 once id applied before.
 */
export const APPLY = `${IDS}${UPDATES}
-- Marks the id applied; false when it already was.
local function once(grid, d)
  local x, f = split(d)
  local k, v = findId(grid, x, f)
  if v == '1' then return false end
  if k then redis.call('HSET', k, f, '1')
  else addId(grid, x, f, '1') end
  return true
end

local grids, a = {}, 3
for g = 1, tonumber(ARGV[2]) do
  grids[g] = gridOf(ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]))
  a = a + 4
end

local out = {}
for k = 1, #KEYS do
  local grid, count = string.match(ARGV[a], '^([^,]*),(%d+)$')
  count = tonumber(count)
  a = a + 1
  local applied = 1
  if grid ~= '' then
    if not once(grids[tonumber(grid)], ARGV[a]) then applied = 0 end
    a = a + 1
  end
  if applied == 1 then
    applyUpdates(KEYS[k], a, count)
    redis.call('PEXPIRE', KEYS[k], ARGV[1])
  end
  out[k] = applied
  a = a + 2 * count
end
flushCounts()
return out
`;

/**
 * Redis Cluster, step 1 of an apply with event ids (protocol in cluster-apply.ts), in the slot of
 * one scope's ids. KEYS[1] the newest slot's meta key (it routes the call; every id key shares its
 * hash tag). ARGV `base first last expireAt` (one grid), then pairs: digest, owner (8 bytes naming
 * the entity). An id absent or reserved becomes `p` .. owner (being applied to that entity); answers
 * per pair 1 go on (the id is this owner's now, or was already), 0 applied before or taken by
 * another entity.
 */
export const ONCE_BEGIN = `${IDS}
local grid = gridOf(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
local out = {}
for i = 5, #ARGV, 2 do
  local mine = 'p' .. ARGV[i + 1]
  local x, f = split(ARGV[i])
  local k, v = findId(grid, x, f)
  if v == '1' or (v and v ~= '0' and v ~= mine) then
    out[#out + 1] = 0
  else
    if not k then addId(grid, x, f, mine)
    elseif v ~= mine then redis.call('HSET', k, f, mine) end
    out[#out + 1] = 1
  end
end
flushCounts()
return out
`;

/**
 * Redis Cluster, step 2: updates of entities that share one slot. KEYS per request its entity
 * hash, then its marker hash when it has an event id. ARGV[1] idle TTL in ms, then per request
 * `<expiry of the id or empty>,<number of updates>`, the digest when there is an expiry, and the
 * updates (see UPDATES). The marker (digest -> 1, kept until the id's expiry at most) makes a
 * repeated step a no-op. Answers per request 1 applied, 0 applied before.
 */
export const APPLY_ENTITY = `${UPDATES}
local out, a, k = {}, 2, 1
while a <= #ARGV do
  local expireAt, count = string.match(ARGV[a], '^([^,]*),(%d+)$')
  count = tonumber(count)
  a = a + 1
  local h = KEYS[k]
  k = k + 1
  local applied = 1
  if expireAt ~= '' then
    local m = KEYS[k]
    k = k + 1
    if redis.call('HSETNX', m, ARGV[a], '1') == 0 then
      applied = 0
    elseif redis.call('PEXPIRETIME', m) < tonumber(expireAt) then
      redis.call('PEXPIREAT', m, expireAt)
    end
    a = a + 1
  end
  if applied == 1 then
    applyUpdates(h, a, count)
    redis.call('PEXPIRE', h, ARGV[1])
  end
  out[#out + 1] = applied
  a = a + 2 * count
end
return out
`;

/**
 * Redis Cluster, step 3: marks ids applied. KEYS[1] and ARGV `base first last expireAt` as
 * ONCE_BEGIN, then digests. An id no longer found (its slot expired meanwhile) is added applied.
 */
export const ONCE_COMMIT = `${IDS}
local grid = gridOf(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
for i = 5, #ARGV do
  local x, f = split(ARGV[i])
  local k, v = findId(grid, x, f)
  if not k then addId(grid, x, f, '1')
  elseif v ~= '1' then redis.call('HSET', k, f, '1') end
end
flushCounts()
return 0
`;

/**
 * KEYS[1] the newest slot's meta key (routing, as ONCE_BEGIN); ARGV `base first last expireAt`
 * (one grid, see IDS), then digests. Reserves the absent ids; answers per id 0 new (reserved now),
 * 1 reserved before (or being applied: ONCE_BEGIN), 2 applied.
 */
export const RESERVE = `${IDS}
local grid = gridOf(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
local out = {}
for i = 5, #ARGV do
  local x, f = split(ARGV[i])
  local _, v = findId(grid, x, f)
  if v == '1' then out[#out + 1] = 2
  elseif v then out[#out + 1] = 1
  else
    addId(grid, x, f, '0')
    out[#out + 1] = 0
  end
end
flushCounts()
return out
`;

/** KEYS[1] routing (as RESERVE); ARGV `base first last`, then digests: removes the ids still only reserved. */
export const UNRESERVE = `${IDS}
local grid = gridOf(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), 0)
for i = 4, #ARGV do
  local x, f = split(ARGV[i])
  local k, v = findId(grid, x, f)
  if v == '0' then redis.call('HDEL', k, f) end
end
return 0
`;

/**
 * KEYS entity hashes; ARGV per key: the number of its reads, then three per read: 's', series,
 * floor or 'm', series, ''. Answers one string per read, keys in order (a sum of nothing is '0'),
 * or nil for a missing maximum.
 */
export const READ = `${EVICT}
local out = {}
local a = 1
for k = 1, #KEYS do
  local key = KEYS[k]
  local last = a + 3 * tonumber(ARGV[a])
  for i = a + 1, last, 3 do
    local s = ARGV[i + 1]
    if ARGV[i] == 's' then
      evict(key, s, tonumber(ARGV[i + 2]))
      out[#out + 1] = redis.call('HGET', key, s .. ':t') or '0'
    else
      out[#out + 1] = redis.call('HGET', key, s .. ':m')
    end
  end
  a = last + 1
end
return out
`;

/** KEYS the claim keys; ARGV[1] TTL in ms. Answers per key 1 when this call claimed it, 0 when it was held. */
export const CLAIM = `
local out = {}
for i, k in ipairs(KEYS) do
  out[i] = redis.call('SET', k, '1', 'NX', 'PX', ARGV[1]) and 1 or 0
end
return out
`;

/**
 * KEYS[1] a hold's HASH (h holder, t token, e expiry in ms); ARGV[1] holder, ARGV[2] token,
 * ARGV[3] TTL in ms. Takes the hold when absent (Redis expired it) or renews it for its holder,
 * on the server's clock; answers {1 if ARGV[1] holds it now else 0, holder, token, expiry}.
 */
export const HOLD = `
local h = redis.call('HMGET', KEYS[1], 'h', 't', 'e')
if h[1] and h[1] ~= ARGV[1] then return {0, h[1], h[2], h[3]} end
local now = redis.call('TIME')
local e = tostring(tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[3]))
local t = h[2] or ARGV[2]
redis.call('HSET', KEYS[1], 'h', ARGV[1], 't', t, 'e', e)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, ARGV[1], t, e}
`;

/** KEYS[1] a hold's HASH; ARGV[1] holder. Deletes it when ARGV[1] holds it; answers 1 then, else 0. */
export const DROP_HOLD = `
if redis.call('HGET', KEYS[1], 'h') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS[1] queue, KEYS[2] lease queue (or the queue again); ARGV[1] now, ARGV[2] limit, then
 * optionally ARGV[3] lease due time and ARGV[4] lease prefix. Removes and answers the due members,
 * earliest first, and with a lease adds prefix .. member to the lease queue (earliest due kept).
 */
export const TAKE_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for i = 1, #ids, 1000 do
  local last = math.min(i + 999, #ids)
  redis.call('ZREM', KEYS[1], unpack(ids, i, last))
  if ARGV[3] then
    local args = {}
    for j = i, last do args[#args + 1] = ARGV[3]; args[#args + 1] = ARGV[4] .. ids[j] end
    redis.call('ZADD', KEYS[2], 'LT', unpack(args))
  end
end
return ids
`;
