--@include task-lib.lua
-- Writes new task records (all queued, all of one project) and indexes them.
-- KEYS: the undispatched set, then per task 1 + ANY + GROUP keys: task hash, its list indexes,
--       its queued group; then optionally (one key more) the hash of the task these retry,
--       which gets retry_task_id = the first new task's id
-- ARGV: now ms, then per task: id, created_at ms, n, then n field/value arguments
local per_task = 1 + ANY + GROUP
local tasks_end = #KEYS - ((#KEYS - 1) % per_task)
local a = 2
local first_id
for k = 2, tasks_end, per_task do
  local id
  id, a = create_queued(KEYS[k], k + 1, k + 1 + ANY, KEYS[1], ARGV[1], a)
  first_id = first_id or id
end
if tasks_end < #KEYS then redis.call('HSET', KEYS[#KEYS], 'retry_task_id', first_id) end
return (tasks_end - 1) / per_task
