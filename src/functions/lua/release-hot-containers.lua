--@keys reserved
-- Gives back a reservation of reserve-hot-containers.lua whose save failed: the field goes back
-- to its previous value (or away), unless another save changed it meanwhile.
-- KEYS: the project's hot containers hash
-- ARGV: field, the value reserved ('' when the reservation removed the field), the previous
--       value ('' when there was none)
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 0 end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
