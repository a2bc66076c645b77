--@include cache-state.lua
--@keys values cas expiry flags
-- Reads a live item. KEYS: values, cas, expiry, flags. ARGV: item key, and optionally the
-- fewest bytes of value left out of the reply ('0': always).
-- Returns {value JSON, cas, expiry time in ms or '' when it never expires, flags} or nil; a value
-- of at least ARGV[2] bytes is left out, {'', cas, expiry, flags, its length} returned instead:
-- CacheStore reads it with an HGET beside this script, so Lua never copies a large value.
local key = ARGV[1]
if not is_live(key, now_ms()) then return nil end
local cas = redis.call('HGET', KEYS[2], key)
local expires_at = redis.call('ZSCORE', KEYS[3], key) or ''
local flags = flags_of(KEYS[4], key, cas)
local apart = tonumber(ARGV[2])
if apart then
  local length = redis.call('HSTRLEN', KEYS[1], key)
  if length >= apart then return {'', cas, expires_at, flags, length} end
end
return {redis.call('HGET', KEYS[1], key), cas, expires_at, flags}
