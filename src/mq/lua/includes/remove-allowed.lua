--@include check-reservations.lua
--@include remove-checked.lua
-- Removes those of messages `ids` (reservation ids `rids`, as check_reservations takes them) that
-- may be acted on, leaving the others; returns how many were removed and each one's outcome.
local function remove_allowed(ids, rids, now)
  local outcomes, until_ms = check_reservations(ids, rids, now)
  local allowed, allowed_until = {}, {}
  for i, outcome in ipairs(outcomes) do
    if outcome == OK then
      allowed[#allowed + 1] = ids[i]
      allowed_until[#allowed] = until_ms[i]
    end
  end
  remove_checked(allowed, allowed_until, now)
  return #allowed, outcomes
end
