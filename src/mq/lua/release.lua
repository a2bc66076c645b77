#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/index-reserved-plain.lua
--@include includes/front-scores.lua
--@include includes/check-live-reservation.lua
-- Ends a live reservation: the message goes to the front of the queue, at once or after a delay.
-- ARGV: id, reservation id ('*' = the current one), delay (s), wake channel.
-- Returns { -1 } for a missing queue, else { outcome }.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local now = now_ms()
local id, delay = ARGV[1], tonumber(ARGV[3])
local outcome = check_live_reservation(id, ARGV[2], now)
if outcome ~= OK then return { outcome } end
index_reserved_plain({ id })
redis.call('ZREM', K_RESERVED, id)
redis.call('HDEL', K_RID, id)
if delay > 0 then
  redis.call('ZADD', K_DELAYED, now + delay * 1000, id)
  redis.call('SADD', K_RELEASED, id)
else
  redis.call('ZADD', K_READY, front_scores(1), id)
  redis.call('PUBLISH', ARGV[4], 1)
end
return { OK }
