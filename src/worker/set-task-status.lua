-- The one way a task's status changes: a compare-and-set, so that cancel, timeout and
-- completion cannot both win. Returns {1, previous status} on success and {0, current
-- status} when the task is not in one of the allowed source states (or is missing: '').
-- KEYS: task hash, then the project's status indexes (scored by created_at) in the order
--       queued, preparing, running, complete, error, cancelled, timeout, then the task's
--       code package's status indexes (scored by the time of the change) in the same order
-- ARGV: allowed source statuses (comma separated), new status, now ms,
--       required runner ('' for any), then field/value pairs to set with the change
local statuses = {'queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'}
local final = {complete = true, error = true, cancelled = true, timeout = true}
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
local allowed = false
for status in string.gmatch(ARGV[1], '[^,]+') do
  if status == current then allowed = true end
end
if not allowed then return {0, current} end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'runner') ~= ARGV[4] then return {0, current} end

local now = tonumber(ARGV[3])
local target = ARGV[2]
local id = redis.call('HGET', KEYS[1], 'id')
local n = #statuses
for i, status in ipairs(statuses) do
  if status == current then
    redis.call('ZREM', KEYS[i + 1], id)
    redis.call('ZREM', KEYS[i + 1 + n], id)
  end
  if status == target then
    redis.call('ZADD', KEYS[i + 1], redis.call('HGET', KEYS[1], 'created_at'), id)
    redis.call('ZADD', KEYS[i + 1 + n], now, id)
  end
end
redis.call('HSET', KEYS[1], 'status', target, 'updated_at', ARGV[3])
if target == 'running' then redis.call('HSET', KEYS[1], 'start_time', ARGV[3]) end
if final[target] then
  redis.call('HSET', KEYS[1], 'end_time', ARGV[3])
  local started = redis.call('HGET', KEYS[1], 'start_time')
  if started then redis.call('HSET', KEYS[1], 'duration', now - tonumber(started)) end
end
if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
return {1, current}
