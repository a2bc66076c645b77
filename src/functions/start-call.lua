-- A runner starts a call: queued (or running, when re-run after its runner died) → running.
-- KEYS: call ; ARGV: now (ms). Returns 0 when the call is over or gone.
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[1])
return 1
