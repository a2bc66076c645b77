#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/queue-record.lua
--@include includes/check-reservations.lua
--@include includes/remove-checked.lua
--@include includes/evaluate-alerts.lua
-- Deletes messages, all or none. ARGV: the messages' ids, then their reservation ids in the same
-- order ('' = none given, '*' = whatever reservation it has).
-- Returns { -1 } for a missing queue, { 0, 0, fired alerts (JSON) } when all were deleted, else
-- { outcome, position } of the first message that may not be deleted (nothing is deleted then).
local head = queue_record('alerts', 'alert_size')
if not head[1] then return { -1 } end
local count = #ARGV / 2
local ids, rids = { unpack(ARGV, 1, count) }, { unpack(ARGV, count + 1) }
local now = now_ms()
local outcomes, until_ms = check_reservations(ids, rids, now)
for i, outcome in ipairs(outcomes) do
  if outcome ~= OK then return { outcome, i } end
end
remove_checked(ids, until_ms, now)
return { OK, 0, evaluate_alerts(now, { head[2], head[3] }) }
