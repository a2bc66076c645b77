-- Writes new task records (all queued, all of one project) and indexes them.
-- KEYS: project task index, queued status index, then per task: task hash, tasks of its code,
--       its code's queued index; then optionally (one key more) the hash of the task these
--       retry, which gets retry_task_id = the first new task's id
-- ARGV: per task: id, created_at ms, number of field/value arguments n, then the n arguments
local a = 1
local triples_end = #KEYS - ((#KEYS - 2) % 3)
for i = 3, triples_end, 3 do
  local id, created, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  redis.call('HSET', KEYS[i], unpack(ARGV, a + 3, a + 2 + n))
  redis.call('ZADD', KEYS[1], created, id)
  redis.call('ZADD', KEYS[2], created, id)
  redis.call('ZADD', KEYS[i + 1], created, id)
  redis.call('ZADD', KEYS[i + 2], created, id)
  a = a + 3 + n
end
if triples_end < #KEYS then redis.call('HSET', KEYS[#KEYS], 'retry_task_id', ARGV[1]) end
return (triples_end - 2) / 3
