--@include remove-messages.lua
--@include remove-reserved.lua
-- Removes messages `ids` that check_reservations let be acted on, `until_ms` the end of each
-- one's reservation as it returned them: those with a live reservation sit only in the reserved set.
local function remove_checked(ids, until_ms, now)
  local reserved, others = {}, {}
  for i, id in ipairs(ids) do
    if until_ms[i] and tonumber(until_ms[i]) > now then
      reserved[#reserved + 1] = id
    else
      others[#others + 1] = id
    end
  end
  remove_reserved(reserved)
  remove_messages(others)
end
