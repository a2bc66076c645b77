--@include queue-keys.lua
-- A message's own reservation timeout (s) when posted with one, else `default`.
local function message_timeout(id, default)
  return tonumber(redis.call('HGET', K_TIMEOUT, id) or default)
end
