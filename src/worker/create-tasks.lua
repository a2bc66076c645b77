-- Writes new task records (all queued, all of one project) and indexes them.
-- KEYS: project task index, queued status index, then per task: task hash, tasks of its code
-- ARGV: per task: id, created_at ms, number of field/value arguments n, then the n arguments
local a = 1
for i = 3, #KEYS, 2 do
  local id, created, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  redis.call('HSET', KEYS[i], unpack(ARGV, a + 3, a + 2 + n))
  redis.call('ZADD', KEYS[1], created, id)
  redis.call('ZADD', KEYS[2], created, id)
  redis.call('ZADD', KEYS[i + 1], created, id)
  a = a + 3 + n
end
return (#KEYS - 2) / 2
