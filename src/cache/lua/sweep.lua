#!lua flags=allow-oom
--@include cache-state.lua
-- Reclaims up to `limit` expired items of a cache. ARGV: cache name, limit.
-- Returns how many were removed.
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[2]))
remove_items(ARGV[1], expired)
refresh(ARGV[1])
return #expired
