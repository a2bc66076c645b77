--@include queue-keys.lua
--@include variadic.lua
--@include index-reserved-plain.lua
--@include to-front.lua
-- Reserved messages whose reservation ran out go back to the front.
local function return_lapsed(ids)
  if #ids == 0 then return end
  index_reserved_plain(ids)
  variadic('ZREM', K_RESERVED, ids)
  variadic('HDEL', K_RID, ids)
  to_front(ids)
end
