--@include ../../core/lua/clock.lua
--@keys counter expiry sizes
-- A project's call records and logs as counted toward its stored_bytes: the counter
-- ProjectStorage reads for 'calls', with one entry per call (its app and id) holding its bytes
-- and when its record and log expire (FERRUM_FUNCTIONS_CALL_RETENTION_MS).
-- KEYS: counter, expiry (zset: entry -> expires at, ms), sizes (hash: entry -> bytes)
local EXPIRED_PER_STEP = 1000

-- Forgets one entry; returns the bytes it held.
local function release(entry)
  local bytes = tonumber(redis.call('HGET', KEYS[3], entry) or '0')
  redis.call('HDEL', KEYS[3], entry)
  redis.call('ZREM', KEYS[2], entry)
  return bytes
end

-- Forgets the entries whose records have expired; returns the bytes they held.
local function release_expired()
  local freed = 0
  for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now_ms(), 'LIMIT', 0, EXPIRED_PER_STEP)) do
    freed = freed + release(entry)
  end
  return freed
end

-- Moves the counter by `change` (never below 0); returns the bytes the project's calls store.
local function add_to_counter(change)
  local total = redis.call('INCRBY', KEYS[1], change)
  if total < 0 then
    redis.call('SET', KEYS[1], 0)
    total = 0
  end
  return total
end
