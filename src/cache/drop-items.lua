--@include cache-state.lua
-- Removes every item of a cache (clear and delete cache). ARGV: cache name.
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
refresh(ARGV[1])
return 1
