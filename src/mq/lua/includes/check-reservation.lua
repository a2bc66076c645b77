--@include check-reservations.lua
local function check_reservation(id, rid, now)
  return check_reservations({ id }, { rid }, now)[1]
end
