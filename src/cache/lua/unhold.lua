#!lua flags=allow-oom
--@include cache-state.lua
--@keys values
-- Last in the MULTI of a large value's put (see put.lua): empties the field the put held because
-- it stored nothing. KEYS: values. ARGV: item key. Returns 1 when it emptied it, else 0.
local key = ARGV[1]
if redis.call('HSTRLEN', KEYS[1], key) ~= #HELD or redis.call('HGET', KEYS[1], key) ~= HELD then return 0 end
redis.call('HDEL', KEYS[1], key)
return 1
