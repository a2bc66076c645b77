--@include queue-keys.lua
--@include rid-parts.lua
-- The expiry (ms) of each of `ids`, nil for a message that has no record: its expiry entry, else
-- a plain message's (its ready score, `ready_scores` when given, plus `plain_ms`; or its rid field's).
local function expiries(ids, plain_ms, ready_scores)
  local found = redis.call('ZMSCORE', K_EXPIRY, unpack(ids))
  local out, missing = {}, false
  for i = 1, #ids do
    out[i] = tonumber(found[i] or '')
    if not out[i] then missing = true end
  end
  if not missing then return out end
  ready_scores = ready_scores or redis.call('ZMSCORE', K_READY, unpack(ids))
  local rids = redis.call('HMGET', K_RID, unpack(ids))
  for i = 1, #ids do
    local score = tonumber(ready_scores[i] or '')
    if out[i] then
      -- An entry of its own.
    elseif score and score > 0 and plain_ms then
      out[i] = score + plain_ms
    else
      local _, expiry = rid_parts(rids[i])
      out[i] = expiry
    end
  end
  return out
end
