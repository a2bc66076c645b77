--@keys values cas expiry names live due sequence bytes stored
-- Shared functions of every cache item script (each includes it first).
-- Key layout of the item scripts, all under one project's hash tag:
--   KEYS[1] values   hash  item key -> the value as JSON text
--   KEYS[2] cas      hash  item key -> cas of the stored version
--   KEYS[3] expiry   zset  item key -> expiry time (ms); only items that expire
--   KEYS[4] names    zset  cache names holding items (score 0: ordered by name)
--   KEYS[5] live     zset  cache name -> when its last item expires (+inf: never)
--   KEYS[6] due      zset  cache name -> when its first item expires (for the sweeper)
--   KEYS[7] sequence string, the project's cas counter (never deleted, so a cas is never reused)
--   KEYS[8] bytes    hash  cache name -> bytes its items take (keys + value JSON)
--   KEYS[9] stored   string, the bytes of every cache of the project (its stored_bytes quota)
-- An item is live when it is in the values hash and its expiry, if any, is in the future.

--@include ../core/clock.lua

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
  if redis.call('HINCRBY', KEYS[8], name, change) <= 0 then redis.call('HDEL', KEYS[8], name) end
  if redis.call('INCRBY', KEYS[9], change) < 0 then redis.call('SET', KEYS[9], 0) end
end

-- Whether a write growing cache `name` by `change` bytes passes a quota: 'caches_quota' when
-- it would add a cache past `max_caches`, 'bytes_quota' when the project's bytes would pass
-- `allowance`, else nil.
local function quota_refusal(change, allowance, max_caches)
  if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[4]) >= max_caches then return 'caches_quota' end
  if change > 0 and tonumber(redis.call('GET', KEYS[9]) or '0') + change > allowance then return 'bytes_quota' end
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
end

local function next_cas()
  return redis.call('INCR', KEYS[7])
end

-- Brings the project's indexes of cache `name` in line with its items: a cache is listed
-- while it holds items, live until its last expiry, and due for sweeping at its first.
local function refresh(name)
  local count = redis.call('HLEN', KEYS[1])
  if count == 0 then
    redis.call('UNLINK', KEYS[2], KEYS[3])
    redis.call('HDEL', KEYS[8], name)
    redis.call('ZREM', KEYS[4], name)
    redis.call('ZREM', KEYS[5], name)
    redis.call('ZREM', KEYS[6], name)
    return
  end
  redis.call('ZADD', KEYS[4], 0, name)
  local expiring = redis.call('ZCARD', KEYS[3])
  if expiring < count then
    redis.call('ZADD', KEYS[5], '+inf', name)
  else
    redis.call('ZADD', KEYS[5], redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')[2], name)
  end
  if expiring > 0 then
    redis.call('ZADD', KEYS[6], redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2], name)
  else
    redis.call('ZREM', KEYS[6], name)
  end
end
