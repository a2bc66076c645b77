--@include includes/queue-keys.lua
--@include includes/maintain.lua
-- The queue's stored settings and its message counts by state, after maintain().
-- Returns {} for a missing queue, else { ready, delayed, reserved, messages dropped as expired,
-- field, value, field, value, ... } (the size is their sum).
if redis.call('EXISTS', K_QUEUE) == 0 then return {} end
local expired = maintain(now_ms())
local out = { redis.call('ZCARD', K_READY), redis.call('ZCARD', K_DELAYED), redis.call('ZCARD', K_RESERVED), expired }
for _, item in ipairs(redis.call('HGETALL', K_QUEUE)) do out[#out + 1] = item end
return out
