--@include cache-state.lua
--@keys values cas expiry names
-- Counts the live items of a cache: all stored items less those already expired.
-- KEYS: values, cas, expiry, names. ARGV: cache name. Returns -1 when there is no such cache.
if redis.call('ZSCORE', KEYS[4], ARGV[1]) == false then return -1 end
return redis.call('HLEN', KEYS[1]) - redis.call('ZCOUNT', KEYS[3], '-inf', now_ms())
