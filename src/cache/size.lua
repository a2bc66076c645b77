--@include cache-state.lua
--@keys values cas expiry
-- Counts the live items of a cache: all stored items less those already expired.
-- KEYS: values, cas, expiry.
return redis.call('HLEN', KEYS[1]) - redis.call('ZCOUNT', KEYS[3], '-inf', now_ms())
