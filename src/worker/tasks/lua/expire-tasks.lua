--@include task-lib.lua
--@keys expiring entries...
-- Drops finished tasks whose retention has passed: record, log and every index entry, so
-- lists and stats never show a task that is gone. The record and log usually expired on
-- their own already (PEXPIREAT at the final status); deleting them again is harmless.
-- KEYS: the expiring set, then per entry 2 + ANY + GROUP keys: task hash, log, the all-status
--       list indexes earlier versions wrote (see task-lib.lua), its final status's group
-- ARGV: now ms, then per entry its member of the expiring set
-- Returns how many entries were dropped; an entry not yet due (or gone) is skipped.
local per_entry = 2 + ANY + GROUP
local now = tonumber(ARGV[1])
local dropped = 0
for e = 2, #ARGV do
  local member = ARGV[e]
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score and tonumber(score) <= now then
    local k = 2 + (e - 2) * per_entry
    local id = string.match(member, '^[^/]+')
    redis.call('UNLINK', KEYS[k], KEYS[k + 1])
    for i = k + 2, k + per_entry - 1 do redis.call('ZREM', KEYS[i], id) end
    redis.call('ZREM', KEYS[1], member)
    dropped = dropped + 1
  end
end
return dropped
