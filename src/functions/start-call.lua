--@keys call app_suspended
-- A runner starts a call: queued (or running, when re-run after its runner died) → running.
-- A call of a suspended project is not started: it ends as an error at once (returns -1).
-- KEYS: call, the app's suspension flag ; ARGV: now (ms), error message for a suspended project.
-- Returns 0 when the call is over or gone.
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[1], 'status', 'error', 'completed_at', ARGV[1], 'error', ARGV[2])
  return -1
end
redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[1])
return 1
