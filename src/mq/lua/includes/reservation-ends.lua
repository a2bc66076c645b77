--@include queue-keys.lua
--@include keep-hash-table.lua
-- The end (ms) of the reservation of each of `ids` (nil when not reserved), `fields` their rid
-- fields. Every script that puts a message on the reserved set gives it a rid field and every one
-- that takes it off drops the field (in every release), so a message with a field is reserved.
-- While no reservation has lapsed, each reserved one is live: `now + 1` stands for its end and
-- the reserved set's scores (one number written and read back as text per message: about a tenth
-- of the Redis instructions of an acknowledged message) are read only when some reservation has lapsed.
local function reservation_ends(ids, fields, now)
  if #redis.call('ZRANGEBYSCORE', K_RESERVED, '-inf', now, 'LIMIT', 0, 1) > 0 then
    return redis.call('ZMSCORE', K_RESERVED, unpack(ids))
  end
  local ends, live = {}, now + 1
  for i, id in ipairs(ids) do
    if fields[i] and id ~= HASH_TABLE_FIELD then ends[i] = live end
  end
  return ends
end
