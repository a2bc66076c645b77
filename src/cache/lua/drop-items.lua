#!lua flags=allow-oom
--@include cache-state.lua
-- Removes every item of a cache: clear keeps the cache (listed, size 0), delete ends it.
-- ARGV: cache name, 'clear' or 'delete'. Returns 1, or 0 when there is no such cache.
local name = ARGV[1]
if not cache_exists(name) then return 0 end
account(name, -tonumber(redis.call('HGET', KEYS[7], name) or '0'))
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[9])
redis.call('ZREM', KEYS[5], name)
if ARGV[2] == 'delete' then redis.call('ZREM', KEYS[4], name) end
return 1
