--@include includes/queue-keys.lua
--@include includes/queue-size.lua
-- Writes a queue's settings when its version is still the one the caller read.
-- ARGV: expected version ('' = the queue must not exist), then field/value pairs; an empty
-- value removes the field. Returns the new version, or -1 when the queue changed meanwhile.
local current = redis.call('HGET', K_QUEUE, 'version')
if (current or '') ~= ARGV[1] then return -1 end
local now = now_ms()
if not current then
  redis.call('HSET', K_QUEUE, 'created_at', now, 'total', 0, 'front', 0)
end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', K_QUEUE, ARGV[i])
  else
    redis.call('HSET', K_QUEUE, ARGV[i], ARGV[i + 1])
  end
end
redis.call('HSET', K_QUEUE, 'updated_at', now)
-- Alerts compare the size with the one of their last evaluation: start from the current one.
if redis.call('HEXISTS', K_QUEUE, 'alerts') == 1 then
  redis.call('HSET', K_QUEUE, 'alert_size', queue_size())
else
  redis.call('HDEL', K_QUEUE, 'alert_size')
end
return redis.call('HINCRBY', K_QUEUE, 'version', 1)
