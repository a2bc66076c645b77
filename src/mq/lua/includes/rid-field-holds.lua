--@include plain-layout.lua
-- Whether the rid field's `value` holds reservation id `rid` (alone, or before a plain message's
-- expiry), and that expiry; without a copy of the reservation id, which Lua would hash byte by byte.
-- The messages of one reservation share their expiry text: each text is read as a number once.
local expiry_of_text = {}
local function rid_field_holds(value, rid)
  if not value then return false, nil end
  local at = string.find(value, RID_EXPIRY, 1, true)
  if not at then return value == rid, nil end
  local text = string.sub(value, at + 1)
  local expiry = expiry_of_text[text]
  if not expiry then
    expiry = tonumber(text)
    expiry_of_text[text] = expiry
  end
  return at == #rid + 1 and string.find(value, rid, 1, true) == 1, expiry
end
