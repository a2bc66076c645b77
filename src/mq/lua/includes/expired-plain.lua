--@include queue-keys.lua
--@include plain-expiration.lua
--@include plain-expired-range.lua
-- Plain messages on the ready set that expired, at most `limit`: the ready set's oldest plain
-- scores, less the messages there with an expiry entry (an expiration of their own: they are
-- dropped by their entry).
local function expired_plain(now, limit)
  local plain_ms = plain_expiration()
  if not plain_ms or limit <= 0 then return {} end
  local low, high = plain_expired_range(now, plain_ms)
  local candidates = redis.call('ZRANGEBYSCORE', K_READY, low, high, 'LIMIT', 0, limit)
  if #candidates == 0 then return candidates end
  local entries = redis.call('ZMSCORE', K_EXPIRY, unpack(candidates))
  local expired = {}
  for i, id in ipairs(candidates) do
    if not entries[i] then expired[#expired + 1] = id end
  end
  return expired
end
