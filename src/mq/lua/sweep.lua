#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/maintain.lua
-- Realizes time on one queue (maintain()): drops expired messages, returns lapsed reservations,
-- promotes due delayed messages. Run by the sweeper for queues nobody is using.
-- Returns how many messages expired (0 for a missing queue).
if redis.call('EXISTS', K_QUEUE) == 0 then return 0 end
return maintain(now_ms())
