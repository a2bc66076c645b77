#!lua
--@keys due active_count schedules...
-- Writes new schedules and makes each due at its first run, unless the project would then
-- have more active schedules than its max_schedules.
-- KEYS: due set, the project's active schedules count, then per schedule: record hash, project index
-- ARGV: max_schedules, then per schedule: id, due member, created_at ms, next_start ms, n, then
--       n field/value arguments
-- Returns the number written, or -1 (nothing written) when max_schedules would be exceeded.
local count = (#KEYS - 2) / 2
local active = tonumber(redis.call('GET', KEYS[2]) or '0')
if active + count > tonumber(ARGV[1]) then return -1 end
local a = 2
for i = 3, #KEYS, 2 do
  local id, member, created, next_start, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], tonumber(ARGV[a + 4])
  redis.call('HSET', KEYS[i], unpack(ARGV, a + 5, a + 4 + n))
  redis.call('ZADD', KEYS[i + 1], created, id)
  redis.call('ZADD', KEYS[1], next_start, member)
  a = a + 5 + n
end
redis.call('INCRBY', KEYS[2], count)
return count
