--@keys task
-- Records a running task's progress. Returns {1, 'running'} or {0, current status} ('' if missing).
-- KEYS: task hash
-- ARGV: now ms, then field/value pairs (percent, msg)
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if current ~= 'running' then return {0, current} end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[1], unpack(ARGV, 2))
return {1, current}
