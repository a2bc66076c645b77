-- The time every script takes as now: Redis's clock, one clock for all processes.
-- TEST_CLOCK_OFFSET_MS is 0 except when a test moves the script clock (lua.ts scriptClock).
local TEST_CLOCK_OFFSET_MS = 0

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + TEST_CLOCK_OFFSET_MS
end
