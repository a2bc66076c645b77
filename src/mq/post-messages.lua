-- Puts messages on a queue, creating the queue with default settings when it is missing.
-- ARGV: default expiration (s), wake channel, then per message: id, body, delay (s),
-- push headers (JSON or ''), reserved_count. An id already on the queue is skipped (dead
-- letter hand-over may repeat). Returns { queue created (0/1), messages inserted }.
local now = now_ms()
local created = 0
if redis.call('EXISTS', K_QUEUE) == 0 then
  redis.call('HSET', K_QUEUE, 'version', 1, 'created_at', now, 'updated_at', now, 'total', 0, 'front', 0)
  created = 1
end
local expiration_ms = tonumber(redis.call('HGET', K_QUEUE, 'expiration') or ARGV[1]) * 1000
local inserted, available = 0, 0
for i = 3, #ARGV, 5 do
  local id, delay = ARGV[i], tonumber(ARGV[i + 2])
  if redis.call('HSETNX', K_BODY, id, ARGV[i + 1]) == 1 then
    if ARGV[i + 3] ~= '' then redis.call('HSET', K_HEADERS, id, ARGV[i + 3]) end
    if ARGV[i + 4] ~= '0' then redis.call('HSET', K_COUNT, id, ARGV[i + 4]) end
    redis.call('ZADD', K_EXPIRY, now + expiration_ms, id)
    if delay > 0 then
      redis.call('ZADD', K_DELAYED, now + delay * 1000, id)
    else
      redis.call('ZADD', K_READY, now, id)
      available = available + 1
    end
    inserted = inserted + 1
  end
end
redis.call('HINCRBY', K_QUEUE, 'total', inserted)
if available > 0 then redis.call('PUBLISH', ARGV[2], available) end
return { created, inserted }
