--@keys values cas expiry names due sequence
-- Shared functions of every cache item script (each includes it first).
-- Key layout of the item scripts, all under one project's hash tag:
--   KEYS[1] values   hash  item key -> the value as JSON text
--   KEYS[2] cas      hash  item key -> cas of the stored version
--   KEYS[3] expiry   zset  item key -> expiry time (ms); only items that expire
--   KEYS[4] names    zset  the project's caches (score 0: ordered by name), items or not
--   KEYS[5] due      zset  cache name -> when its first item expires (for the sweeper)
--   KEYS[6] sequence string, the project's cas counter (never deleted, so a cas is never reused)
-- An item is live when it is in the values hash and its expiry, if any, is in the future.
-- A cache exists from the first put or increment addressed to it until it is deleted: clearing
-- it, deleting its items or their expiry leave it listed, with size 0.

--@include ../core/clock.lua

local function is_live(key, now)
  if redis.call('HEXISTS', KEYS[1], key) == 0 then return false end
  local expires_at = redis.call('ZSCORE', KEYS[3], key)
  return (not expires_at) or tonumber(expires_at) > now
end

local function remove_items(keys)
  if #keys == 0 then return end
  redis.call('HDEL', KEYS[1], unpack(keys))
  redis.call('HDEL', KEYS[2], unpack(keys))
  redis.call('ZREM', KEYS[3], unpack(keys))
end

local function next_cas()
  return redis.call('INCR', KEYS[6])
end

local function cache_exists(name)
  return redis.call('ZSCORE', KEYS[4], name) ~= false
end

-- Lists cache `name`: put and increment create the cache (nothing else does, so a sweep or an
-- item delete racing a delete of the cache cannot bring it back).
local function create_cache(name)
  redis.call('ZADD', KEYS[4], 0, name)
end

-- Brings the sweeper's index of cache `name` in line with its items: due at its first expiry.
local function refresh(name)
  if redis.call('HLEN', KEYS[1]) == 0 then
    redis.call('UNLINK', KEYS[2], KEYS[3])
    redis.call('ZREM', KEYS[5], name)
    return
  end
  if redis.call('ZCARD', KEYS[3]) > 0 then
    redis.call('ZADD', KEYS[5], redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2], name)
  else
    redis.call('ZREM', KEYS[5], name)
  end
end
