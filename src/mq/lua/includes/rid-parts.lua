--@include plain-layout.lua
-- The reservation id in a rid field's `value` and, for a reserved plain message, its expiry.
local function rid_parts(value)
  if not value then return nil, nil end
  local at = string.find(value, RID_EXPIRY, 1, true)
  if not at then return value, nil end
  return string.sub(value, 1, at - 1), tonumber(string.sub(value, at + 1))
end
