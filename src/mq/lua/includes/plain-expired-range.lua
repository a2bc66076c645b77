-- Ready-set scores at or below which plain messages have expired (the range's bounds).
local function plain_expired_range(now, plain_ms)
  return '(0', now - plain_ms
end
