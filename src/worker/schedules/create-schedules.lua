-- Writes new schedules and makes each due at its first run.
-- KEYS: due set, then per schedule: record hash, project index
-- ARGV: per schedule: id, due member, created_at ms, next_start ms, n, then n field/value arguments
local a = 1
for i = 2, #KEYS, 2 do
  local id, member, created, next_start, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], tonumber(ARGV[a + 4])
  redis.call('HSET', KEYS[i], unpack(ARGV, a + 5, a + 4 + n))
  redis.call('ZADD', KEYS[i + 1], created, id)
  redis.call('ZADD', KEYS[1], next_start, member)
  a = a + 5 + n
end
return (#KEYS - 1) / 2
