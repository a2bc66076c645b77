--@include queue-keys.lua
-- Bodies of at most this many bytes on average are read (one HMGET) to count their bytes; bigger
-- ones are measured one HSTRLEN each, so that big bodies are not copied into Lua.
local SMALL_BODY_BYTES = 1024

-- Bytes of the bodies of `ids`.
local function body_bytes(ids)
  local bytes = 0
  if #ids > 1 then
    local stored = redis.call('HLEN', K_BODY)
    if stored > 0 and tonumber(redis.call('HGET', K_QUEUE, 'bytes') or '0') <= SMALL_BODY_BYTES * stored then
      for first = 1, #ids, CHUNK do
        local bodies = redis.call('HMGET', K_BODY, unpack(ids, first, math.min(first + CHUNK - 1, #ids)))
        for _, body in ipairs(bodies) do
          if body then bytes = bytes + #body end
        end
      end
      return bytes
    end
  end
  for _, id in ipairs(ids) do bytes = bytes + redis.call('HSTRLEN', K_BODY, id) end
  return bytes
end
