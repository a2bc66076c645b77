--@keys call app_suspended
-- A runner starts a call: queued (or running, when re-run after its runner died) → running.
-- A call of a suspended project is not started: it ends as an error at once (returns -1).
-- KEYS: call, the app's suspension flag ; ARGV: now (ms), error message for a suspended project.
-- Returns {1 (started), -1 (ended: suspended) or 0 (over or gone), 1 when the call was queued
-- until now (it left its project's queued calls), else 0}.
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return {0, 0} end
local was_queued = status == 'queued' and 1 or 0
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[1], 'status', 'error', 'completed_at', ARGV[1], 'error', ARGV[2])
  return {-1, was_queued}
end
redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[1])
return {1, was_queued}
