--@include queue-keys.lua
--@include plain-expired-range.lua
-- Whether each of `count` messages is on the reserved set (`until_ms`, their scores there), none
-- of them plain and expired (`own_expiry`, from their rid fields), while no other message of the
-- queue has expired: then each one exists (a reserved message always has its record) and is
-- unexpired, without reading their expiry.
local function reserved_and_unexpired(until_ms, own_expiry, count, now, plain_ms)
  for i = 1, count do
    if not until_ms[i] or (own_expiry[i] and own_expiry[i] <= now) then return false end
  end
  if #redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, 1) > 0 then return false end
  if not plain_ms then return true end
  local low, high = plain_expired_range(now, plain_ms)
  return #redis.call('ZRANGEBYSCORE', K_READY, low, high, 'LIMIT', 0, 1) == 0
end
