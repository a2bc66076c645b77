--@include task-lib.lua
--@keys task log expiring undispatched counters payloads total groups_and_retry...
-- The one way a task's status changes: a compare-and-set, so that cancel, timeout and
-- completion cannot both win. Returns {1, previous status} on success and {0, current
-- status} when the task is not in one of the allowed source states (or is missing: '').
-- A task reaching a final status expires after the retention: its record and log get that
-- expiry and it joins the expiring set, whose sweeper drops its index entries then.
-- With a retry attached, the retry task is written in the same step (so a crash cannot
-- lose it) and marked undispatched until its BullMQ job exists.
-- The project's usage figures follow: total_duration grows by the run time of a task that
-- ends, and a retry counts as a new task.
-- A task leaving queued releases its queued_tasks and stored_bytes room; a retry reserves its
-- own (task-lib.lua), and is left out, the change made all the same, when the project has none;
-- one back to queued takes its room again.
-- KEYS: task hash, its log, the expiring set, the undispatched set, the project's counters,
--       its queued payloads hash and their total, then the task's status groups in STATUSES
--       order; then, with a retry, its hash
-- ARGV: allowed source statuses (comma separated), new status, now ms, required runner
--       ('' for any), retention ms, n, n field/value arguments to set with the change; then
--       optionally the retry: the most queued tasks, the bytes allowance, its payload bytes,
--       id, created_at ms, m, m field/value arguments
-- With a retry, a third element: 0 when it was written, -1 (queued_tasks) / -2 (stored_bytes)
-- when refused.
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
local task = redis.call('HMGET', KEYS[1], 'id', 'created_at', 'start_time', 'code_id', 'cluster', 'code_name')
local id, created = task[1], task[2]
local groups_first = 8
local function group_of(status)
  for i, name in ipairs(STATUSES) do
    if name == status then return groups_first + (i - 1) * GROUP end
  end
end
move_task(group_of(current), group_of(target), id, created, now)
if current == 'queued' and target ~= 'queued' then release_queued(KEYS[6], KEYS[7], id) end
if target == 'queued' and current ~= 'queued' then
  reenter_queued(KEYS[6], KEYS[7], id, redis.call('HSTRLEN', KEYS[1], 'payload'))
end

redis.call('HSET', KEYS[1], 'status', target, 'updated_at', ARGV[3])
-- A pull shows only while its task is preparing (mark-task-pulling.lua).
redis.call('HDEL', KEYS[1], 'pulling_at')
if target == 'running' then redis.call('HSET', KEYS[1], 'start_time', ARGV[3]) end
local n = tonumber(ARGV[6])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 7, 6 + n)) end
if FINAL[target] then
  redis.call('HSET', KEYS[1], 'end_time', ARGV[3])
  if task[3] then
    local duration = now - tonumber(task[3])
    redis.call('HSET', KEYS[1], 'duration', duration)
    redis.call('HINCRBY', KEYS[5], 'total_duration', duration)
  end
  local expiry = now + tonumber(ARGV[5])
  redis.call('PEXPIREAT', KEYS[1], expiry)
  redis.call('PEXPIREAT', KEYS[2], expiry)
  -- The member names every index the task is in, so the sweeper needs no record to clean up.
  redis.call('ZADD', KEYS[3], expiry, table.concat({id, target, task[4], task[5], task[6]}, '/'))
end
if #ARGV > 6 + n then
  local r = 7 + n
  local refused = reserve_queued(KEYS[6], KEYS[7], KEYS[group_of('queued')], tonumber(ARGV[r]),
    tonumber(ARGV[r + 1]), {ARGV[r + 3], ARGV[r + 2]})
  if refused ~= 0 then
    -- The owner sees why no retry followed in the task's message.
    local why = 'retry not queued: quota ' .. (refused == -1 and 'queued_tasks' or 'stored_bytes') .. ' reached'
    local msg = redis.call('HGET', KEYS[1], 'msg')
    redis.call('HSET', KEYS[1], 'msg', msg and (msg .. '; ' .. why) or why)
    return {1, current, refused}
  end
  local retry_id = create_queued(KEYS[#KEYS], group_of('queued'), KEYS[4], ARGV[3], r + 3)
  redis.call('HSET', KEYS[1], 'retry_task_id', retry_id)
  count_created(KEYS[5], 1, now)
  return {1, current, 0}
end
return {1, current}
