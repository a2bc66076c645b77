--@include queue-keys.lua
--@include variadic.lua
--@include existing.lua
--@include body-bytes.lua
--@include distinct.lua
-- Removes a message's record (expiry entry, body, count, headers, timeout) and, for each place
-- given in `places`, its entry there (ready, delayed, reserved, rid, released).
-- The queue record's `bytes` counts its messages' bodies (the project's queue_bytes quota);
-- `freed`: their bytes when the caller knows them. An id given twice (a batch delete may name one
-- twice) is removed, and its bytes given back, once.
local function remove_records(ids, places, freed)
  if #ids == 0 then return end
  ids = distinct(ids)
  freed = freed or body_bytes(ids)
  if freed > 0 and redis.call('HINCRBY', K_QUEUE, 'bytes', -freed) < 0 then redis.call('HSET', K_QUEUE, 'bytes', 0) end
  for _, key in ipairs(existing({ K_EXPIRY })) do variadic('ZREM', key, ids) end
  variadic('HDEL', K_BODY, ids)
  for _, key in ipairs(existing({ K_COUNT, K_HEADERS, K_TIMEOUT })) do variadic('HDEL', key, ids) end
  for _, place in ipairs(places) do
    if place == K_RELEASED then
      variadic('SREM', place, ids)
    elseif place == K_RID then
      variadic('HDEL', place, ids)
    else
      variadic('ZREM', place, ids)
    end
  end
end
