--@include queue-keys.lua
--@include variadic.lua
--@include rid-parts.lua
-- The reserved plain messages among `ids`, about to leave the reserved set for the ready or
-- delayed set, get their expiry entry (from their rid field).
local function index_reserved_plain(ids)
  if #ids == 0 then return end
  local values = redis.call('HMGET', K_RID, unpack(ids))
  local entries = {}
  for i, id in ipairs(ids) do
    local _, expiry = rid_parts(values[i])
    if expiry then
      entries[#entries + 1] = expiry
      entries[#entries + 1] = id
    end
  end
  if #entries > 0 then variadic('ZADD', K_EXPIRY, entries, 2, 'NX') end
end
