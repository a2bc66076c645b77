-- Realizes time on one queue (maintain()): drops expired messages, returns lapsed reservations,
-- promotes due delayed messages. Run by the sweeper for queues nobody is using.
if redis.call('EXISTS', K_QUEUE) == 0 then return 0 end
maintain(now_ms())
return 1
