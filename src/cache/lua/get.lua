--@include cache-state.lua
--@keys values cas expiry
-- Reads a live item. KEYS: values, cas, expiry. ARGV: item key. Returns {value JSON, cas} or nil.
local key = ARGV[1]
if not is_live(key, now_ms()) then return nil end
return {redis.call('HGET', KEYS[1], key), redis.call('HGET', KEYS[2], key)}
