--@include common.lua
-- Fires the alerts whose trigger the queue size crossed since their last evaluation (after a
-- change made outside the message scripts, such as clear). Returns JSON as evaluate_alerts().
if redis.call('EXISTS', K_QUEUE) == 0 then return '[]' end
return evaluate_alerts(now_ms())
