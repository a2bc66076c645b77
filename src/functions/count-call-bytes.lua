--@include ../core/lua/clock.lua
--@keys counter expiry sizes
-- Keeps a project's call records and logs counted toward its stored_bytes: the counter
-- ProjectStorage reads for 'calls', with one entry per call (its app and id) holding its bytes
-- and when its record and log expire. Gives back first the entries whose records have expired
-- (FERRUM_FUNCTIONS_CALL_RETENTION_MS), then sets the given entries' bytes (a record written
-- again counts its new size, not both) and gives back the entries named to be released.
-- KEYS: counter, expiry (zset: entry -> expires at, ms), sizes (hash: entry -> bytes)
-- ARGV: how many entries are set (n); then n triples: entry, bytes, expires at (ms); then the
--       entries released (their records were deleted).
-- Returns the counter: the bytes the project's calls now store.
local EXPIRED_PER_STEP = 1000
local n = tonumber(ARGV[1])
local change = 0
local function release(entry)
  change = change - tonumber(redis.call('HGET', KEYS[3], entry) or '0')
  redis.call('HDEL', KEYS[3], entry)
  redis.call('ZREM', KEYS[2], entry)
end
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now_ms(), 'LIMIT', 0, EXPIRED_PER_STEP)) do
  release(entry)
end
for i = 0, n - 1 do
  local entry, bytes = ARGV[2 + 3 * i], tonumber(ARGV[3 + 3 * i])
  change = change + bytes - tonumber(redis.call('HGET', KEYS[3], entry) or '0')
  redis.call('HSET', KEYS[3], entry, bytes)
  redis.call('ZADD', KEYS[2], ARGV[4 + 3 * i], entry)
end
for i = 2 + 3 * n, #ARGV do release(ARGV[i]) end
local total = redis.call('INCRBY', KEYS[1], change)
if total < 0 then
  redis.call('SET', KEYS[1], 0)
  total = 0
end
return total
