import { CLAIM_BUCKETS } from './claim-layout.js';

/**
 * Lua scripts of the Redis window store: each runs atomically, in one round trip. Layout of an entity's hash (series names arrive escaped, so they hold no ':'):
 *   <series>:<bucket>  value of a bucket          <series>:t  running total of the live buckets
 *   <series>:n         number of live buckets     <series>:l  no live bucket is below this
 *   <series>:m         stored maximum of a max series
 * A script call reads and writes each entity once (SERIES).
 */

/**
 * Event ids of a scope (layout in index.ts). A grid is `base legacy slotMs first last expireAt`:
 * the ids' meta hash, the base of the earlier layout's slot keys, the slot length, the oldest and
 * newest slot of the window, and when an id added now may be forgotten (event-ids.ts).
 *
 * One place per digest for the whole window: an id lives in bucket `x mod b` of a generation of
 * b buckets (`base:<generation>:<bucket>`, a HASH of 8-byte digest -> `<slot>,<state>`; state 0
 * reserved by intake, 1 applied, or on a Redis Cluster `p` and 8 bytes for the moment between the
 * steps of an apply, ONCE_BEGIN). A lookup is one HGET a live generation, one at a steady rate,
 * where a bucket per six-hour slot made it five. An entry whose slot is older than the window's
 * first counts as absent. Upkeep is paid per bucket, not per id, so a bucket holds many: `o`, the
 * oldest slot it may hold, has its bucket pruned of entries out of the window when written two
 * slots later; `l`, its key's expiry, is set three slots beyond what the id needs, so PEXPIREAT
 * runs once in four slots (an idle scope's ids linger up to 18 hours longer).
 * The meta hash: `top` (the newest generation), per generation `<g>` = `<buckets>,<last slot
 * written>,<latest expiry asked>`, `c` and `n` (the current slot and ids added in it), `e` (its
 * own expiry, as late as any bucket's, so a generation's number is never reused while its keys live). A generation is searched while its last slot is in the window and forgotten once
 * its expiry passed. The newest grows sixteen-fold once the window would hold 64 ids a bucket at this
 * slot's rate (so it opens at 4 a bucket), and shrinks four-fold at a slot's start when the last
 * slot's rate filled under 16: a steady rate keeps one generation of 16 to 64 ids a bucket, and a
 * bucket stays a listpack (under 128 fields: at most 64 live, two slots not yet pruned, two marks),
 * which HGET scans in C. Every generation a burst opened stays searched for a whole window, one
 * HGET per new id each: sixteen-fold steps open half the generations four-fold ones did (a backlog
 * of 500,000 ids into a fresh scope: five instead of nine, 4.1 HGETs a new id instead of 7.7;
 * counters-redis-split.notes.md), and the shrink at the next slot gives a steady rate the buckets
 * four-fold steps gave it.
 * The earlier layout (a meta hash and buckets per six-hour slot, `legacy .. slot`) is still
 * searched, read-only but for state changes in place, until its last ids are forgotten (30 hours
 * after this layout's first write): an absent slot costs one HGETALL a script call.
 * Lua in Redis pays for every call and every number turned into a string, so a script call reads
 * each meta hash once and writes what changed at the end (flushMetas).
 */
const IDS = `
-- Per bucket key, its marks o and l as last read or written (two maps: no table per lookup).
local metas, oldest, expiries, legacies = {}, {}, {}, {}

local function metaOf(base, now)
  local m = metas[base]
  if m == nil then
    local all = redis.call('HGETALL', base)
    local f = {}
    for i = 1, #all, 2 do f[all[i]] = all[i + 1] end
    m = { key = base, gens = {}, top = tonumber(f.top) or 0, c = tonumber(f.c) or 0, n = tonumber(f.n) or 0, e = tonumber(f.e) or 0, dirty = false, dead = {} }
    for g = 1, m.top do
      local spec = f[tostring(g)]
      if spec then
        local b, s, x = string.match(spec, '^(%d+),(%d+),(%d+)$')
        x = tonumber(x)
        if x <= now then m.dead[#m.dead + 1] = tostring(g)
        else m.gens[#m.gens + 1] = { g = g, b = tonumber(b), s = tonumber(s), x = x, prefix = base .. ':' .. g .. ':' } end
      end
    end
    if #m.dead > 0 then m.dirty = true end
    metas[base] = m
  end
  return m
end

local function flushMetas()
  for base, m in pairs(metas) do
    if m.dirty then
      local args = { base, 'top', m.top, 'c', string.format('%d', m.c), 'n', m.n, 'e', string.format('%d', m.e) }
      for _, gen in ipairs(m.gens) do
        if gen.dirty then
          args[#args + 1] = tostring(gen.g)
          args[#args + 1] = gen.b .. ',' .. string.format('%d', gen.s) .. ',' .. string.format('%d', gen.x)
        end
      end
      redis.call('HSET', unpack(args))
      if #m.dead > 0 then redis.call('HDEL', base, unpack(m.dead)) end
      redis.call('PEXPIREAT', base, m.e)
    end
  end
end

-- The earlier layout's slots of a grid, newest first: per slot its generations' bucket counts and key prefixes.
local function legacyOf(grid)
  if grid.legacy == nil then
    grid.legacy = {}
    for s = grid.last, grid.first, -1 do
      local meta = grid.legacyBase .. string.format('%d', s)
      local slot = legacies[meta]
      if slot == nil then
        local f = {}
        local all = redis.call('HGETALL', meta)
        for i = 1, #all, 2 do f[all[i]] = all[i + 1] end
        slot = {}
        for g = 1, tonumber(f.g) or 0 do slot[#slot + 1] = { b = tonumber(f['b' .. g]), prefix = meta .. ':' .. g .. ':' } end
        legacies[meta] = slot
      end
      grid.legacy[#grid.legacy + 1] = slot
    end
  end
  return grid.legacy
end

local function gridOf(base, legacyBase, slotMs, first, last, expireAt)
  -- Every slot before the newest has ended, so a generation whose expiry is before its start is gone.
  return { meta = metaOf(base, last * slotMs), legacyBase = legacyBase, slotMs = slotMs, first = first, last = last, slotText = string.format('%d', last), k = last - first + 1, expireAt = expireAt }
end

local function gridArgs(a)
  return gridOf(ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]))
end

-- A digest's bucket pick (4 bytes) and stored field (8 bytes).
local function split(d)
  local a, b, c, e = string.byte(d, 1, 4)
  return ((a * 256 + b) * 256 + c) * 256 + e, string.sub(d, 5, 12)
end

-- A stored value's slot and state.
local function slotOfValue(v)
  local comma = string.find(v, ',', 1, true)
  return tonumber(string.sub(v, 1, comma - 1)), string.sub(v, comma + 1)
end

-- Answers the key holding the id (x, f), its state and its slot (nil in the earlier layout), or nil.
-- The newest generation's read also fetches its bucket's marks, which an addition needs.
local function findId(grid, x, f)
  local gens = grid.meta.gens
  for i = #gens, 1, -1 do
    local gen = gens[i]
    if gen.s >= grid.first then
      local k = gen.prefix .. (x % gen.b)
      local v
      if i == #gens then
        local r = redis.call('HMGET', k, f, 'o', 'l')
        v = r[1]
        oldest[k] = tonumber(r[2]) or false
        expiries[k] = tonumber(r[3]) or 0
      else
        v = redis.call('HGET', k, f)
      end
      if v then
        local slot, state = slotOfValue(v)
        if slot >= grid.first then return k, state, slot end
      end
    end
  end
  for _, slot in ipairs(legacyOf(grid)) do
    for g = #slot, 1, -1 do
      local k = slot[g].prefix .. (x % slot[g].b)
      local v = redis.call('HGET', k, f)
      if v then return k, v, nil end
    end
  end
  return nil
end

-- Changes the state of an id found by findId, in place (its slot, hence its expiry, unchanged).
local function setState(k, f, slot, state)
  if slot then redis.call('HSET', k, f, string.format('%d', slot) .. ',' .. state)
  else redis.call('HSET', k, f, state) end
end

local function openGeneration(m, grid, b)
  m.top = m.top + 1
  local gen = { g = m.top, b = b, s = grid.last, x = grid.expireAt, prefix = m.key .. ':' .. m.top .. ':', dirty = true }
  m.gens[#m.gens + 1] = gen
  return gen
end

-- Drops the entries of bucket k older than the window; answers the oldest slot left, or nil.
local function prune(k, first)
  local all = redis.call('HGETALL', k)
  local stale, oldest = {}, nil
  for i = 1, #all, 2 do
    if #all[i] == 8 then
      local s = slotOfValue(all[i + 1])
      if s < first then stale[#stale + 1] = all[i]
      elseif oldest == nil or s < oldest then oldest = s end
    end
  end
  if #stale > 0 then redis.call('HDEL', k, unpack(stale)) end
  return oldest
end

-- Adds the id (x, f), absent from the grid, to its newest generation (after findId, whose marks it uses).
local function addId(grid, x, f, value)
  local m = grid.meta
  local slot = grid.last
  local gen = m.gens[#m.gens]
  -- A slot's first addition (a caller whose clock is behind adds to the count of the later one).
  if slot > m.c then
    local before = m.c == slot - 1 and m.n or 0
    if gen and gen.b > 1 and grid.k * before < 16 * gen.b then gen = openGeneration(m, grid, gen.b / 4) end
    m.c = slot
    m.n = 0
  end
  if not gen then gen = openGeneration(m, grid, 1)
  elseif grid.k * (m.n + 1) > 64 * gen.b then gen = openGeneration(m, grid, gen.b * 16) end
  m.n = m.n + 1
  m.dirty = true
  if gen.s < slot then gen.s = slot; gen.dirty = true end
  if grid.expireAt > gen.x then gen.x = grid.expireAt; gen.dirty = true end
  if grid.expireAt + 3 * grid.slotMs > m.e then m.e = grid.expireAt + 3 * grid.slotMs end
  local k = gen.prefix .. (x % gen.b)
  -- Marks findId did not read are of a generation opened by this call (none yet) or idle for a whole
  -- window (its ids all out of it): taken as none, which at worst delays a prune.
  local o, l = oldest[k], expiries[k] or 0
  local args = { k, f, grid.slotText .. ',' .. value }
  local moved = false
  if o and o < grid.first - 1 then
    o = prune(k, grid.first)
    moved = true
  end
  if not o or slot < o then
    o = slot
    moved = true
  end
  if moved then
    args[#args + 1] = 'o'
    args[#args + 1] = string.format('%d', o)
  end
  local extend = grid.expireAt > l
  if extend then
    l = grid.expireAt + 3 * grid.slotMs
    args[#args + 1] = 'l'
    args[#args + 1] = string.format('%d', l)
  end
  oldest[k], expiries[k] = o, l
  redis.call('HSET', unpack(args))
  if extend then redis.call('PEXPIREAT', k, l) end
end
`;

/**
 * An entity's series, read once and written once a request: the fields its updates need (per sum
 * series its bucket and `l`, `n`, `t`; per max series `m`) come in one HMGET, the changed ones go
 * back in one HSET, then one PEXPIRE: three calls for an event of three series, where a call per
 * field read or changed made ten. The updates address the reply by position: a copy of the
 * entity keyed by field name cost Lua in Redis more than the seven calls it saved (each table
 * grown and each lookup by name is paid in the interpreter). Position holds while a request names
 * each series once; one that names a series again (rare) is applied an update at a time.
 * Sums are added here, not by HINCRBY(FLOAT), so that one HSET writes a bucket and its total:
 * integers stay exact (to 2^53) and a result with a fraction is rounded to 15 significant digits,
 * the most a double holds exactly, so 0.1 + 0.2 stays 0.3 and no noise piles up over a running
 * total (the rule of the memory and LMDB stores, memory/sum-series.ts addNumbers). The fields are
 * those the earlier scripts wrote, their values (HINCRBYFLOAT's, long double rounded to 17 decimal
 * places) read as they stand.
 */
const SERIES = `
-- Lua reads a global from a table each time, a local directly: the hot path keeps its functions local.
local fmt, byte, match, sub, num, call = string.format, string.byte, string.match, string.sub, tonumber, redis.call

-- The text of a + b, as the memory store adds (see above).
local function add(a, b)
  local s = a + b
  if s % 1 == 0 then
    if s > -9007199254740992 and s < 9007199254740992 then return fmt('%d', s) end
    return fmt('%.17g', s)
  end
  return fmt('%.15g', s)
end

-- Evicts the buckets below floor from the series of prefix p, whose live buckets are none below
-- lo, n of them, totalling t (text). A small step up from lo probes the buckets in one HMGET; a
-- large one (an idle entity) scans the hash once. Deletes them at once, and answers the series'
-- new lo, n and t, or nil, 0, nil when none is left (its fields are then the caller's to drop, so
-- its total restarts from an exact zero).
local function evict(h, p, lo, floor, n, t)
  local gone, values = {}, {}
  if floor - lo <= 64 then
    local probe = {}
    for b = lo, floor - 1 do probe[#probe + 1] = p .. fmt('%d', b) end
    local r = redis.call('HMGET', h, unpack(probe))
    for i = 1, #probe do
      if r[i] then
        gone[#gone + 1] = probe[i]
        values[#values + 1] = r[i]
      end
    end
  else
    local all = redis.call('HGETALL', h)
    for i = 1, #all, 2 do
      local f = all[i]
      if string.sub(f, 1, #p) == p then
        local b = tonumber(string.sub(f, #p + 1))
        if b and b < floor then
          gone[#gone + 1] = f
          values[#values + 1] = all[i + 1]
        end
      end
    end
  end
  for i = 1, #gone, 1000 do redis.call('HDEL', h, unpack(gone, i, math.min(i + 999, #gone))) end
  n = n - #gone
  if n <= 0 then return nil, 0, nil end
  for _, v in ipairs(values) do t = add(tonumber(t) or 0, -tonumber(v)) end
  return floor, n, t
end

-- The fields a sum series keeps beside its buckets: no live bucket is below l, n live buckets,
-- their total t; f holds their names from f[j] on. Answers del, made when first needed.
local function keepSum(set, del, f, j, lo, n, t)
  if lo then
    set[#set + 1] = f[j]
    set[#set + 1] = fmt('%d', lo)
    set[#set + 1] = f[j + 1]
    set[#set + 1] = fmt('%d', n)
    set[#set + 1] = f[j + 2]
    set[#set + 1] = t
    return del
  end
  del = del or {}
  del[#del + 1] = f[j]
  del[#del + 1] = f[j + 1]
  del[#del + 1] = f[j + 2]
  return del
end
`;

/**
 * Updates of one entity hash: `applyUpdates(h, a, count, ttl)` applies the `count` updates whose
 * arguments begin at ARGV[a], two per update: the series, and `s,<bucket>,<delta>,<floor>` or
 * `m,<value>`, then re-arms the hash's expiry to ttl. Numbers travel packed: the client pays per
 * argument, and one string.match unpacks them.
 */
const UPDATES = `${SERIES}
-- The updates from ARGV[a] to ARGV[last + 1], each naming another series: one HMGET, one HSET.
-- Growing a table costs Lua in Redis a rehash each time its size doubles (about a tenth of an
-- event's Redis instructions when f and set grew from empty), so both start with room for three
-- series: a constructor's nils size the table and leave it empty.
local function updateEach(h, a, last)
  local f, k = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }, 0
  for i = a, last, 2 do
    local s, spec = ARGV[i], ARGV[i + 1]
    if byte(spec, 1) == 115 then
      f[k + 1] = s .. ':' .. match(spec, '^s,([^,]+),')
      f[k + 2] = s .. ':l'
      f[k + 3] = s .. ':n'
      f[k + 4] = s .. ':t'
      k = k + 4
    else
      f[k + 1] = s .. ':m'
      k = k + 1
    end
  end
  if k == 0 then return end
  local r = call('HMGET', h, unpack(f))
  local set, del, j = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }, nil, 1
  for i = a, last, 2 do
    local spec = ARGV[i + 1]
    if byte(spec, 1) == 115 then
      local bucketText, delta, floorText = match(spec, '^s,([^,]+),([^,]+),([^,]+)$')
      local floor, bucket = num(floorText), num(bucketText)
      -- n stays text unless the series' buckets change: each tonumber is a strtod.
      local lo, n, t = num(r[j + 1]), r[j + 2], r[j + 3]
      local moved = false
      if lo and floor > lo then
        lo, n, t = evict(h, sub(f[j + 1], 1, -2), lo, floor, num(n) or 0, t)
        moved = true
      end
      if bucket >= floor then
        local d = num(delta)
        set[#set + 1] = f[j]
        set[#set + 1] = add(num(r[j]) or 0, d)
        t = add(num(t) or 0, d)
        if not r[j] then
          n = (num(n) or 0) + 1
          if not lo or bucket < lo then lo = bucket end
          moved = true
        end
        if moved then del = keepSum(set, del, f, j + 1, lo, n, t)
        else
          set[#set + 1] = f[j + 3]
          set[#set + 1] = t
        end
      elseif moved then
        del = keepSum(set, del, f, j + 1, lo, n, t)
      end
      j = j + 4
    else
      local value = sub(spec, 3)
      if not r[j] or num(r[j]) < num(value) then
        set[#set + 1] = f[j]
        set[#set + 1] = value
      end
      j = j + 1
    end
  end
  if #set > 0 then call('HSET', h, unpack(set)) end
  if del then call('HDEL', h, unpack(del)) end
end

-- Whether the updates from ARGV[a] to ARGV[last + 1] name each series once (a few only: the check
-- grows with the square of their number).
local function distinct(a, last)
  if last - a > 30 then return false end
  for i = a + 2, last, 2 do
    for k = a, i - 2, 2 do
      if ARGV[k] == ARGV[i] then return false end
    end
  end
  return true
end

local function applyUpdates(h, a, count, ttl)
  local last = a + 2 * count - 2
  if distinct(a, last) then updateEach(h, a, last)
  else
    for i = a, last, 2 do updateEach(h, i, i) end
  end
  redis.call('PEXPIRE', h, ttl)
end
`;

/**
 * Applies several requests in order, each atomically as below, all in one script (one round trip
 * and one script call for the lot; one server only, as it touches keys of many slots). KEYS one
 * entity hash per request. ARGV[1] idle TTL in ms, ARGV[2] the number of id grids g, then g times
 * the six arguments of a grid (see IDS); then per request `<grid index or empty>,<number of updates>`,
 * the event id's digest when there is a grid, and the updates (see UPDATES).
 * Answers one number per request: 1 applied, 0 once id applied before.
 */
export const APPLY = `${IDS}${UPDATES}
-- Marks the id applied; false when it already was.
local function once(grid, d)
  local x, f = split(d)
  local k, state, slot = findId(grid, x, f)
  if state == '1' then return false end
  if k then setState(k, f, slot, '1')
  else addId(grid, x, f, '1') end
  return true
end

local grids, a = {}, 3
for g = 1, tonumber(ARGV[2]) do
  grids[g] = gridArgs(a)
  a = a + 6
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
  if applied == 1 then applyUpdates(KEYS[k], a, count, ARGV[1]) end
  out[k] = applied
  a = a + 2 * count
end
flushMetas()
return out
`;

/**
 * Redis Cluster, step 1 of an apply with event ids (protocol in cluster-apply.ts), in the slot of
 * one scope's ids. KEYS[1] the ids' meta key (it routes the call; every id key shares its
 * hash tag). ARGV one grid's six (see IDS), then pairs: digest, owner (8 bytes naming
 * the entity). An id absent or reserved becomes `p` .. owner (being applied to that entity); answers
 * per pair 1 go on (the id is this owner's now, or was already), 0 applied before or taken by
 * another entity.
 */
export const ONCE_BEGIN = `${IDS}
local grid = gridArgs(1)
local out = {}
for i = 7, #ARGV, 2 do
  local mine = 'p' .. ARGV[i + 1]
  local x, f = split(ARGV[i])
  local k, state, slot = findId(grid, x, f)
  if state == '1' or (state and state ~= '0' and state ~= mine) then
    out[#out + 1] = 0
  else
    if not k then addId(grid, x, f, mine)
    elseif state ~= mine then setState(k, f, slot, mine) end
    out[#out + 1] = 1
  end
end
flushMetas()
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
  if applied == 1 then applyUpdates(h, a, count, ARGV[1]) end
  out[#out + 1] = applied
  a = a + 2 * count
end
return out
`;

/**
 * Redis Cluster, step 3: marks ids applied. KEYS[1] and the grid's ARGV as ONCE_BEGIN,
 * then digests. An id no longer found (its slot expired meanwhile) is added applied.
 */
export const ONCE_COMMIT = `${IDS}
local grid = gridArgs(1)
for i = 7, #ARGV do
  local x, f = split(ARGV[i])
  local k, state, slot = findId(grid, x, f)
  if not k then addId(grid, x, f, '1')
  elseif state ~= '1' then setState(k, f, slot, '1') end
end
flushMetas()
return 0
`;

/**
 * KEYS[1] the ids' meta key (routing, as ONCE_BEGIN); ARGV one grid's six (see IDS), the base of
 * the scope's claim keys, their newest slot and the lowest second of a claim in the slot before
 * that counts (claim-layout.ts; an empty base on a cluster, which has none), then digests. Reserves the absent ids; answers per id 0 new (reserved now), 1 reserved
 * before (or being applied: ONCE_BEGIN), 2 applied (or claimed by a consumer: it is in the log, so
 * it will be applied).
 */
export const RESERVE = `${IDS}
local grid = gridArgs(1)
local claims, newest, limit = ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])

-- Whether the id (x, f) has a consumer's claim in the window: in the newest claim slot, or in the
-- one before at a second not below limit.
local function claimed(x, f)
  if claims == '' then return false end
  local b = ':' .. string.format('%d', x % ${CLAIM_BUCKETS})
  if redis.call('HEXISTS', claims .. string.format('%d', newest) .. b, f) == 1 then return true end
  local v = redis.call('HGET', claims .. string.format('%d', newest - 1) .. b, f)
  return v and tonumber(string.match(v, ',(%d+)$')) >= limit
end

local out = {}
for i = 10, #ARGV do
  local x, f = split(ARGV[i])
  local _, state = findId(grid, x, f)
  if state == '1' or claimed(x, f) then out[#out + 1] = 2
  elseif state then out[#out + 1] = 1
  else
    addId(grid, x, f, '0')
    out[#out + 1] = 0
  end
end
flushMetas()
return out
`;

/**
 * The plain apply's search of today's layout, for ids applied there before the scope's first claim
 * (plain-claims.ts): KEYS[1] and ARGV as RESERVE without the claims; answers per digest 1 when the
 * id was applied there, else 0. Reads only.
 */
export const OLD_APPLIED = `${IDS}
local grid = gridArgs(1)
local out = {}
for i = 7, #ARGV do
  local x, f = split(ARGV[i])
  local _, state = findId(grid, x, f)
  out[#out + 1] = state == '1' and 1 or 0
end
return out
`;

/**
 * The plain apply's entity updates (plain-claims.ts), one server only: KEYS one entity hash per
 * request, then the source partition's applied-through mark. ARGV[1] idle TTL in ms, ARGV[2] the
 * mark an earlier chunk of the same call raised it to (or empty), ARGV[3] the offset this chunk
 * raises it to, then per request `<offset>,<number of updates>` and the updates (see UPDATES).
 * A request applies when its offset is above the mark; the mark is read once and raised at the end,
 * in the same atomic step. A mark below ARGV[2] means that earlier chunk never ran (an error, a
 * NOSCRIPT resend): nothing is applied and the call fails, so that no offset is passed over.
 * Answers one number per request: 1 applied, 0 at or below the mark (applied before).
 */
export const APPLY_MARKED = `${UPDATES}
local mk = KEYS[#KEYS]
local mark = tonumber(redis.call('GET', mk)) or -1
if ARGV[2] ~= '' and mark < tonumber(ARGV[2]) then return redis.error_reply('WEIRMARK an earlier chunk of this apply did not run') end
local out, a = {}, 4
for k = 1, #KEYS - 1 do
  local offset, count = string.match(ARGV[a], '^(%d+),(%d+)$')
  count = tonumber(count)
  a = a + 1
  if tonumber(offset) > mark then
    applyUpdates(KEYS[k], a, count, ARGV[1])
    out[k] = 1
  else
    out[k] = 0
  end
  a = a + 2 * count
end
if tonumber(ARGV[3]) > mark then redis.call('SET', mk, ARGV[3], 'PX', ARGV[1]) end
return out
`;

/** KEYS[1] routing (as RESERVE); ARGV one grid's six, then digests: removes the ids still only reserved. */
export const UNRESERVE = `${IDS}
local grid = gridArgs(1)
for i = 7, #ARGV do
  local x, f = split(ARGV[i])
  local k, state = findId(grid, x, f)
  if state == '0' then redis.call('HDEL', k, f) end
end
return 0
`;

/**
 * KEYS entity hashes; ARGV per key: the number of its reads, then three per read: 's' (sum), 'o'
 * (lowest live bucket) or 'm' (max), the series, the floor ('' for max). Answers one string per
 * read, keys in order (a sum of nothing is '0'), or nil for a missing maximum or lowest bucket.
 * A lowest read is exact where `l` is only a bound below the lowest bucket, at a bounded cost: a
 * hash of up to SCAN_FIELDS fields is scanned once for all of the entity's lowest reads (HGETALL);
 * a larger one (a busy entity, whose lowest bucket is then near the floor) is probed upward from
 * the floor, PROBE buckets an HMGET, at most PROBES of them, and a series with no bucket there is
 * answered the first bucket past them: a bound, never above its lowest bucket. The flusher asks
 * them of an entity whose expiry came due, and a bound only brings that entity's next flush earlier.
 */
export const READ = `${SERIES}
-- Evicts the buckets below floor from series s of hash h; answers its total (text) or nil when empty.
local function evictTo(h, s, floor)
  local f = { s .. ':l', s .. ':n', s .. ':t' }
  local r = redis.call('HMGET', h, f[1], f[2], f[3])
  local lo, t = tonumber(r[1]), r[3]
  if lo and floor > lo then
    local set, n = {}, 0
    lo, n, t = evict(h, s .. ':', lo, floor, tonumber(r[2]) or 0, t)
    local del = keepSum(set, nil, f, 1, lo, n, t)
    if del then redis.call('HDEL', h, unpack(del))
    else redis.call('HSET', h, unpack(set)) end
  end
  return t
end

local SCAN_FIELDS, PROBE, PROBES = 512, 128, 8

-- The lowest bucket at or above floor of series s, among the fields all of its hash (whose series'
-- fields are s:<bucket>; s:l, s:n, s:t are no numbers).
local function lowest(all, s, floor)
  local p, low = s .. ':', nil
  for i = 1, #all, 2 do
    local f = all[i]
    if sub(f, 1, #p) == p then
      local b = num(sub(f, #p + 1))
      if b and b >= floor and (not low or b < low) then low = b end
    end
  end
  return low and fmt('%d', low) or false
end

-- The lowest bucket of series s of hash h within PROBES * PROBE buckets from floor, else the first
-- bucket past them (no bucket lies below it).
local function probeLowest(h, s, floor)
  local p, names = s .. ':', {}
  for step = 0, PROBES - 1 do
    local from = floor + step * PROBE
    for j = 1, PROBE do names[j] = p .. fmt('%d', from + j - 1) end
    local r = call('HMGET', h, unpack(names))
    for j = 1, PROBE do
      if r[j] then return fmt('%d', from + j - 1) end
    end
  end
  return fmt('%d', floor + PROBES * PROBE)
end

local out = {}
local a = 1
for k = 1, #KEYS do
  local h = KEYS[k]
  -- A small hash's fields, scanned once for all its lowest reads: a field evicted since is below its
  -- series' floor, which lowest skips.
  local size, all
  local last = a + 3 * tonumber(ARGV[a])
  for i = a + 1, last, 3 do
    local kind, s = ARGV[i], ARGV[i + 1]
    if kind == 's' then
      out[#out + 1] = evictTo(h, s, tonumber(ARGV[i + 2])) or '0'
    elseif kind == 'o' then
      local floor = tonumber(ARGV[i + 2])
      if evictTo(h, s, floor) then
        size = size or call('HLEN', h)
        if size <= SCAN_FIELDS then
          all = all or call('HGETALL', h)
          out[#out + 1] = lowest(all, s, floor)
        else
          out[#out + 1] = probeLowest(h, s, floor)
        end
      else
        out[#out + 1] = false
      end
    else
      out[#out + 1] = redis.call('HGET', h, s .. ':m')
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
