--@include plain-layout.lua
-- What follows the reservation id in a reserved plain message's rid field.
local function rid_expiry_suffix(expiry)
  return RID_EXPIRY .. string.format('%.0f', expiry)
end
