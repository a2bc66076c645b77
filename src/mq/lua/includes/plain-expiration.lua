--@include queue-keys.lua
--@include plain-layout.lua
local function plain_expiration()
  return tonumber(redis.call('HGET', K_QUEUE, PLAIN_EXPIRATION) or '')
end
