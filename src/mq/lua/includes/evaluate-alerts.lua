--@include queue-keys.lua
--@include queue-size.lua
--@include alert-crossed.lua
-- Compares the size with the one of the last evaluation (field alert_size, set when alerts are
-- saved) and fires each crossed alert unless it fired less than `snooze` seconds ago.
-- Returns the fired alerts as JSON [[id, type, direction, trigger, target queue, size, ms], ...].
-- `state`: the fields alerts and alert_size when the caller has read them already; `quiet`: the
-- new size is recorded, nothing fires.
local function evaluate_alerts(now, state, quiet)
  state = state or redis.call('HMGET', K_QUEUE, 'alerts', 'alert_size')
  if not state[1] then return '[]' end
  local after = queue_size()
  local before = tonumber(state[2] or after)
  if before == after then return '[]' end
  redis.call('HSET', K_QUEUE, 'alert_size', after)
  if quiet then return '[]' end
  local fired = {}
  for _, alert in ipairs(cjson.decode(state[1])) do
    if alert_crossed(alert, before, after) then
      local field = 'alert_fired:' .. alert.id
      local last = tonumber(redis.call('HGET', K_QUEUE, field) or '-1')
      if last < 0 or now - last >= (tonumber(alert.snooze) or 0) * 1000 then
        redis.call('HSET', K_QUEUE, field, now)
        fired[#fired + 1] = { alert.id, alert.type, alert.direction, alert.trigger, alert.queue, after, now }
      end
    end
  end
  if #fired == 0 then return '[]' end
  return cjson.encode(fired)
end
