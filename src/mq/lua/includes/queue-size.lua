--@include queue-keys.lua
-- Available + delayed + reserved messages.
local function queue_size()
  return redis.call('ZCARD', K_READY) + redis.call('ZCARD', K_DELAYED) + redis.call('ZCARD', K_RESERVED)
end
