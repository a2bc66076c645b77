--@include queue-keys.lua
--@include remove-records.lua
-- Messages whose reservation is live sit only in the reserved set.
local function remove_reserved(ids)
  remove_records(ids, { K_RESERVED, K_RID })
end
