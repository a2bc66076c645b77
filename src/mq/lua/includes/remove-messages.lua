--@include queue-keys.lua
--@include remove-records.lua
local function remove_messages(ids)
  remove_records(ids, { K_READY, K_DELAYED, K_RESERVED, K_RID, K_RELEASED })
end
