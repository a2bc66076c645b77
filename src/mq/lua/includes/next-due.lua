--@include queue-keys.lua
-- The earliest moment something on the queue becomes available by itself, or -1.
local function next_due()
  local candidates = {}
  local delayed = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if delayed[2] then candidates[#candidates + 1] = tonumber(delayed[2]) end
  local reserved = redis.call('ZRANGE', K_RESERVED, 0, 0, 'WITHSCORES')
  if reserved[2] then candidates[#candidates + 1] = tonumber(reserved[2]) end
  if #candidates == 0 then return -1 end
  return math.min(unpack(candidates))
end
