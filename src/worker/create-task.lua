-- Writes a new task record and indexes it.
-- KEYS: task hash, project task index, tasks of the code, index of the initial status
-- ARGV: task id, created_at ms, then field/value pairs of the record
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return 1
