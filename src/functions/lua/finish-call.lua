--@keys call log
-- Ends a call once: sets its final status, times, error and stderr log. Returns {0} when it was
-- already over, else {1, its project id, the bytes its record and log now store}.
-- KEYS: call, log
-- ARGV: status, completed at (ms), error message ('' = none), log ('' = none), retention (ms),
--       started at (ms; '' = leave as it is)
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return { 0 } end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'completed_at', ARGV[2])
if ARGV[6] and ARGV[6] ~= '' and not redis.call('HGET', KEYS[1], 'started_at') then
  redis.call('HSET', KEYS[1], 'started_at', ARGV[6])
end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5]) end
local bytes = #ARGV[4]
for _, part in ipairs(redis.call('HGETALL', KEYS[1])) do bytes = bytes + #part end
return { 1, redis.call('HGET', KEYS[1], 'project_id') or '', bytes }
