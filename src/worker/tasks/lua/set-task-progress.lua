--@keys task
-- Records the progress of a task that has not ended (queued, preparing or running, as the
-- original service accepted). Returns {1, status} or {0, current status} ('' if missing).
-- KEYS: task hash
-- ARGV: now ms, then field/value pairs (percent, msg)
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if current ~= 'queued' and current ~= 'preparing' and current ~= 'running' then return {0, current} end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[1], unpack(ARGV, 2))
return {1, current}
