--@keys counter
-- A counter that may not grow past an allowance: a project's stored bytes in one service, its
-- queued calls.
-- ARGV: change (negative: released), allowance (the most the counter may reach).
-- A growth that would pass the allowance is refused: returns -1 and changes nothing. Otherwise
-- returns the new count (never below 0).
local change, allowance = tonumber(ARGV[1]), tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if change > 0 and current + change > allowance then return -1 end
local next = math.max(0, current + change)
redis.call('SET', KEYS[1], next)
return next
