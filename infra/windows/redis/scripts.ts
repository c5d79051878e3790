/**
 * Lua scripts of the Redis window store: each runs atomically, in one round trip. Layout of an entity's hash (series names arrive escaped, so they hold no ':'):
 *   <series>:<bucket>  value of a bucket          <series>:t  running total of the live buckets
 *   <series>:n         number of live buckets     <series>:l  no live bucket is below this
 *   <series>:m         stored maximum of a max series
 * Sums use HINCRBYFLOAT: Redis adds in long double and stores the result rounded to 17 decimal
 * places, so integer counts stay exact and decimal amounts do not gather binary noise.
 */

/**
 * Evicts buckets below `floor` from series `s` of hash `h`. A small step up from `l` probes the
 * buckets one by one; a large one (an idle entity) scans the hash once. When no bucket is left
 * the series' fields go, so its total restarts from an exact zero.
 */
const EVICT = `
local function negate(v)
  if string.sub(v, 1, 1) == '-' then return string.sub(v, 2) end
  return '-' .. v
end

local function evict(h, s, floor)
  local lo = tonumber(redis.call('HGET', h, s .. ':l'))
  if not lo or floor <= lo then return end
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
  if n <= 0 then
    redis.call('HDEL', h, s .. ':n', s .. ':t', s .. ':l')
  else
    for _, v in ipairs(values) do redis.call('HINCRBYFLOAT', h, s .. ':t', negate(v)) end
    redis.call('HSET', h, s .. ':n', string.format('%d', n), s .. ':l', string.format('%d', floor))
  end
  for _, f in ipairs(fields) do redis.call('HDEL', h, f) end
end
`;

/**
 * Applies several requests in order, each atomically as below, all in one script (one round trip
 * and one script call for the lot). KEYS two per request: entity hash, once key (the entity key
 * when there is none). ARGV[1] idle TTL in ms, then per request `<once ttl ms or empty>,<number
 * of updates>` and two per update: the series, and `s,<bucket>,<delta>,<floor>` or `m,<value>`.
 * Numbers travel packed: the client pays per argument, and one string.match unpacks them.
 * Answers one number per request: 1 applied, 0 once id seen before.
 */
export const APPLY = `${EVICT}
local function sum(h, s, bucketArg, delta, floorArg)
  local floor = tonumber(floorArg)
  evict(h, s, floor)
  local bucket = tonumber(bucketArg)
  if bucket < floor then return end
  local f = s .. ':' .. bucketArg
  if redis.call('HSETNX', h, f, '0') == 1 then
    redis.call('HINCRBY', h, s .. ':n', 1)
    local lo = tonumber(redis.call('HGET', h, s .. ':l'))
    if not lo or bucket < lo then redis.call('HSET', h, s .. ':l', bucketArg) end
  end
  redis.call('HINCRBYFLOAT', h, f, delta)
  redis.call('HINCRBYFLOAT', h, s .. ':t', delta)
end

local function max(h, s, value)
  local cur = redis.call('HGET', h, s .. ':m')
  if not cur or tonumber(cur) < tonumber(value) then redis.call('HSET', h, s .. ':m', value) end
end

local function apply(h, once, onceTtl, a, count)
  if onceTtl ~= '' and not redis.call('SET', once, '1', 'NX', 'PX', onceTtl) then return 0 end
  for i = a, a + 2 * (count - 1), 2 do
    local spec = ARGV[i + 1]
    if string.byte(spec, 1) == 115 then
      sum(h, ARGV[i], string.match(spec, '^s,([^,]+),([^,]+),([^,]+)$'))
    else
      max(h, ARGV[i], string.sub(spec, 3))
    end
  end
  redis.call('PEXPIRE', h, ARGV[1])
  return 1
end

local out, a = {}, 2
for k = 1, #KEYS, 2 do
  local onceTtl, count = string.match(ARGV[a], '^([^,]*),(%d+)$')
  count = tonumber(count)
  out[#out + 1] = apply(KEYS[k], KEYS[k + 1], onceTtl, a + 1, count)
  a = a + 1 + 2 * count
end
return out
`;

/**
 * KEYS[1] entity hash; ARGV three per read: 's', series, floor or 'm', series, ''.
 * Answers one string per read (a sum of nothing is '0'), or nil for a missing maximum.
 */
export const READ = `${EVICT}
local out = {}
for i = 1, #ARGV, 3 do
  local s = ARGV[i + 1]
  if ARGV[i] == 's' then
    evict(KEYS[1], s, tonumber(ARGV[i + 2]))
    out[#out + 1] = redis.call('HGET', KEYS[1], s .. ':t') or '0'
  else
    out[#out + 1] = redis.call('HGET', KEYS[1], s .. ':m')
  end
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

/** KEYS[1] queue; ARGV[1] now, ARGV[2] limit. Removes and answers the due members, earliest first. */
export const TAKE_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for i = 1, #ids, 1000 do
  redis.call('ZREM', KEYS[1], unpack(ids, i, math.min(i + 999, #ids)))
end
return ids
`;
