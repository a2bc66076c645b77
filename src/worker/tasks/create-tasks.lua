--@include task-lib.lua
--@keys undispatched counters tasks...
-- Writes new task records (all queued, all of one project), indexes them and counts them in
-- the project's usage figures.
-- KEYS: the undispatched set, the project's counters, then per task 1 + ANY + GROUP keys: task
--       hash, its list indexes, its queued group; then optionally (one key more) the hash of
--       the task these retry, which gets retry_task_id = the first new task's id
-- ARGV: now ms, then per task: id, created_at ms, n, then n field/value arguments
local per_task = 1 + ANY + GROUP
local first = 3
local tasks_end = #KEYS - ((#KEYS - first + 1) % per_task)
local a = 2
local first_id
for k = first, tasks_end, per_task do
  local id
  id, a = create_queued(KEYS[k], k + 1, k + 1 + ANY, KEYS[1], ARGV[1], a)
  first_id = first_id or id
end
local created = (tasks_end - first + 1) / per_task
count_created(KEYS[2], created, tonumber(ARGV[1]))
if tasks_end < #KEYS then redis.call('HSET', KEYS[#KEYS], 'retry_task_id', first_id) end
return created
