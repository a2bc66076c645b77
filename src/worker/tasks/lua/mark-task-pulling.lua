--@keys task
-- The runner holding a preparing task is pulling its image: the task shows as `preparing`
-- while the mark is newer than its last status change (take-task.lua and set-task-status.lua
-- drop it; releases before it ignore the field, and a change they make outdates it).
-- KEYS: task hash
-- ARGV: runner id, now ms
-- Returns {1, 'preparing'} when marked, else {0, current status} ('' if missing).
local task = redis.call('HMGET', KEYS[1], 'status', 'runner', 'updated_at')
local current = task[1]
if not current then return {0, ''} end
if current ~= 'preparing' or task[2] ~= ARGV[1] then return {0, current} end
local at = math.max(tonumber(ARGV[2]), tonumber(task[3]) or 0)
redis.call('HSET', KEYS[1], 'pulling_at', string.format('%d', at))
return {1, current}
