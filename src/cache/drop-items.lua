--@include cache-state.lua
-- Removes every item of a cache (clear and delete cache). ARGV: cache name.
-- Returns how many live items the cache held (0: there was no such cache).
local live = redis.call('HLEN', KEYS[1]) - redis.call('ZCOUNT', KEYS[3], '-inf', now_ms())
account(ARGV[1], -tonumber(redis.call('HGET', KEYS[8], ARGV[1]) or '0'))
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
refresh(ARGV[1])
return live
