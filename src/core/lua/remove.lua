#!lua flags=allow-oom
--@keys keys...
-- Removals across several keys of one hash tag in one step, on a full Redis too (allow-oom),
-- where a MULTI is refused whole: each step a command that can only remove (DEL, HDEL, SREM,
-- ZREM) on one of KEYS, with its members. A step naming any other command makes the whole call
-- a no-op (it would add data past maxmemory).
-- ARGV: per step: command, key position in KEYS (1-based), member count m, then m members.
-- Returns how many steps ran (-1: refused, nothing ran).
local REMOVING = { DEL = true, HDEL = true, SREM = true, ZREM = true }
local steps, i = {}, 1
while i <= #ARGV do
  local command, key, count = ARGV[i], KEYS[tonumber(ARGV[i + 1])], tonumber(ARGV[i + 2])
  if not REMOVING[command] or not key then return -1 end
  steps[#steps + 1] = { command, key, i + 3, i + 2 + count }
  i = i + 3 + count
end
for _, step in ipairs(steps) do
  if step[1] == 'DEL' then
    redis.call('DEL', step[2])
  elseif step[4] >= step[3] then
    redis.call(step[1], step[2], unpack(ARGV, step[3], step[4]))
  end
end
return #steps
