#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/evaluate-alerts.lua
-- Removes every message of a queue, keeping the queue, and fires the alerts whose trigger the
-- size crossed. It only removes, so it runs on a full Redis too (allow-oom), where a MULTI
-- would be refused whole.
-- Returns -1 for a missing queue, else the fired alerts (JSON, as evaluate_alerts()).
if redis.call('EXISTS', K_QUEUE) == 0 then return -1 end
redis.call('UNLINK', unpack(KEYS, 2, QUEUE_KEY_COUNT))
redis.call('HDEL', K_QUEUE, 'bytes')
return evaluate_alerts(now_ms())
