-- Deletes messages, all or none. ARGV: pairs of id and reservation id ('' = none given).
-- Returns { -1 } for a missing queue, { 0 } when all were deleted, else { outcome, position }
-- of the first message that may not be deleted (nothing is deleted then).
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local now = now_ms()
for i = 1, #ARGV, 2 do
  local outcome = check_reservation(ARGV[i], ARGV[i + 1], now)
  if outcome ~= OK then return { outcome, (i + 1) / 2 } end
end
for i = 1, #ARGV, 2 do remove_message(ARGV[i]) end
return { OK }
