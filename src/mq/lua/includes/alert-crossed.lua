-- Did the size, going from `before` to `after`, cross the alert's trigger in its direction?
-- Progressive alerts trigger at every multiple of `trigger` (never at 0).
local function alert_crossed(alert, before, after)
  local trigger = tonumber(alert.trigger)
  if alert.type == 'fixed' then
    if alert.direction == 'desc' then return before > trigger and after <= trigger end
    return before < trigger and after >= trigger
  end
  if alert.direction == 'desc' then
    local level = math.ceil(before / trigger)
    return level >= 2 and math.ceil(after / trigger) < level
  end
  return after >= trigger and math.floor(after / trigger) > math.floor(before / trigger)
end
