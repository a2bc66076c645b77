--@keys values cas expiry names due sequence bytes stored flags
-- Shared functions of every cache item script (each includes it first).
-- Key layout of the item scripts, all under one project's hash tag:
--   KEYS[1] values   hash  item key -> the value as JSON text
--   KEYS[2] cas      hash  item key -> cas of the stored version
--   KEYS[3] expiry   zset  item key -> expiry time (ms); only items that expire
--   KEYS[4] names    zset  the project's caches (score 0: ordered by name), items or not
--   KEYS[5] due      zset  cache name -> when its first item expires (for the sweeper)
--   KEYS[6] sequence string, the project's cas counter (never deleted, so a cas is never reused)
--   KEYS[7] bytes    hash  cache name -> bytes its items take (keys + value JSON)
--   KEYS[8] stored   string, the bytes of every cache of the project (its stored_bytes quota)
--   KEYS[9] flags    hash  item key -> '<cas>:<flags>', the memcached flags of items that have
--                    any (not 0), valid only while <cas> is the item's cas: a release without
--                    flags (which never touches this hash) re-putting or incrementing the key
--                    gives it a new cas, so what it leaves here reads as 0.
-- An item is live when it is in the values hash and its expiry, if any, is in the future.
-- A cache exists from the first put or increment addressed to it until it is deleted: clearing
-- it, deleting its items or their expiry leave it listed, with size 0.

--@include ../../core/lua/clock.lua

-- What holds a value's place while a large value is written apart (put.lua, unhold.lua): never a
-- stored value, which is JSON text (no NUL byte), and never seen outside that MULTI.
local HELD = '\0held'

local function is_live(key, now)
  if redis.call('HEXISTS', KEYS[1], key) == 0 then return false end
  local expires_at = redis.call('ZSCORE', KEYS[3], key)
  return (not expires_at) or tonumber(expires_at) > now
end

-- Bytes an item takes (its key and value JSON); 0 when absent.
local function item_bytes(key)
  local length = redis.call('HSTRLEN', KEYS[1], key)
  if length == 0 then return 0 end
  return #key + length
end

-- Counts `change` bytes for cache `name` and for the project.
local function account(name, change)
  if change == 0 then return end
  if redis.call('HINCRBY', KEYS[7], name, change) <= 0 then redis.call('HDEL', KEYS[7], name) end
  if redis.call('INCRBY', KEYS[8], change) < 0 then redis.call('SET', KEYS[8], 0) end
end

local function cache_exists(name)
  return redis.call('ZSCORE', KEYS[4], name) ~= false
end

-- Whether a write growing cache `name` by `change` bytes passes a quota: 'caches_quota' when
-- it would add a cache past `max_caches`, 'bytes_quota' when the project's bytes would pass
-- `allowance`, else nil.
local function quota_refusal(name, change, allowance, max_caches)
  if not cache_exists(name) and redis.call('ZCARD', KEYS[4]) >= max_caches then return 'caches_quota' end
  if change > 0 and tonumber(redis.call('GET', KEYS[8]) or '0') + change > allowance then return 'bytes_quota' end
  return nil
end

local function remove_items(name, keys)
  if #keys == 0 then return end
  local freed = 0
  for _, key in ipairs(keys) do freed = freed + item_bytes(key) end
  account(name, -freed)
  redis.call('HDEL', KEYS[1], unpack(keys))
  redis.call('HDEL', KEYS[2], unpack(keys))
  redis.call('ZREM', KEYS[3], unpack(keys))
  redis.call('HDEL', KEYS[9], unpack(keys))
end

-- The flags of item `key` whose cas is `cas` ('0' when it has none), from flags hash `hash`.
local function flags_of(hash, key, cas)
  local entry = redis.call('HGET', hash, key)
  if not entry then return '0' end
  local of_cas, flags = string.match(entry, '^(%d+):(%d+)$')
  if of_cas ~= tostring(cas) then return '0' end
  return flags
end

-- Stores the flags of version `cas` of item `key` (flags '0': none).
local function set_flags(key, cas, flags)
  if flags == '0' then
    redis.call('HDEL', KEYS[9], key)
  else
    redis.call('HSET', KEYS[9], key, cas .. ':' .. flags)
  end
end

local function next_cas()
  return redis.call('INCR', KEYS[6])
end

-- Lists cache `name`: put and increment create the cache (nothing else does, so a sweep or an
-- item delete racing a delete of the cache cannot bring it back).
local function create_cache(name)
  redis.call('ZADD', KEYS[4], 0, name)
end

-- Brings the sweeper's index of cache `name` in line with its items: due at its first expiry.
local function refresh(name)
  if redis.call('HLEN', KEYS[1]) == 0 then
    redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[9])
    redis.call('HDEL', KEYS[7], name)
    redis.call('ZREM', KEYS[5], name)
    return
  end
  if redis.call('ZCARD', KEYS[3]) > 0 then
    redis.call('ZADD', KEYS[5], redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2], name)
  else
    redis.call('ZREM', KEYS[5], name)
  end
end
