--@include cache-state.lua
--@keys values cas expiry flags
-- Reads a live item. KEYS: values, cas, expiry, flags. ARGV: item key.
-- Returns {value JSON, cas, expiry time in ms or '' when it never expires, flags} or nil.
local key = ARGV[1]
if not is_live(key, now_ms()) then return nil end
local cas = redis.call('HGET', KEYS[2], key)
local expires_at = redis.call('ZSCORE', KEYS[3], key) or ''
return {redis.call('HGET', KEYS[1], key), cas, expires_at, flags_of(KEYS[4], key, cas)}
