--@include queue-keys.lua
--@include variadic.lua
--@include remove-messages.lua
--@include to-front.lua
--@include return-lapsed.lua
--@include expired-plain.lua
-- Realizes what time has done: due delayed messages become available (released ones at the
-- front), lapsed reservations return to the front, expired messages are dropped. Returns how
-- many messages expired (BATCH: there may be more).
local function maintain(now)
  local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH)
  if #due > 0 then
    local ids, in_order, released = {}, {}, {}
    for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
    local flags = redis.call('SMISMEMBER', K_RELEASED, unpack(ids))
    for i, id in ipairs(ids) do
      if flags[i] == 1 then
        released[#released + 1] = id
      else
        in_order[#in_order + 1] = due[2 * i]
        in_order[#in_order + 1] = id
      end
    end
    variadic('ZREM', K_DELAYED, ids)
    if #released > 0 then variadic('SREM', K_RELEASED, released) end
    to_front(released)
    if #in_order > 0 then variadic('ZADD', K_READY, in_order, 2) end
  end
  return_lapsed(redis.call('ZRANGEBYSCORE', K_RESERVED, '-inf', now, 'LIMIT', 0, BATCH))
  local expired = redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, BATCH)
  remove_messages(expired)
  local plain = expired_plain(now, BATCH - #expired)
  remove_messages(plain)
  return #expired + #plain
end
