#!lua
--@include task-lib.lua
--@keys undispatched counters payloads total tasks_then_index_sets...
-- Writes new task records (all queued, all of one project), indexes them and counts them in
-- the project's usage figures. The tasks of one request mostly share their code package and
-- cluster, so they share their index keys: each index gets one ZADD of all its new members
-- rather than one per task.
-- A request's first run reserves the queued_tasks and stored_bytes room of every task of the
-- request (reserve_queued in task-lib.lua), so a refused request writes nothing; its later runs
-- reserve nothing.
-- KEYS: the undispatched set, the project's counters, its queued payloads hash and their total,
--       then one hash per task, then index sets of GROUP keys each (the queued status group of
--       the tasks' code and cluster; the first key of each is the project's queued index);
--       then optionally (one key more) the hash of the task these retry, which gets
--       retry_task_id = the first new task's id
-- ARGV: now ms, the number of tasks, the most queued tasks ('' for a later run: no
--       reservation), the bytes allowance, r, r reservation arguments (id, payload bytes per
--       task of the request), m, m field/value arguments every task gets, then per task: id,
--       created_at ms, its index set's number (from 1), n, n field/value arguments
-- Returns the number of tasks written, or -1 (queued_tasks) / -2 (stored_bytes) when refused.
local per_set = GROUP
local count = tonumber(ARGV[2])
local sets_first = 5 + count
local retried = (#KEYS - sets_first + 1) % per_set == 1
local r = tonumber(ARGV[5])
if ARGV[3] ~= '' then
  local refused = reserve_queued(KEYS[3], KEYS[4], KEYS[sets_first], tonumber(ARGV[3]), tonumber(ARGV[4]),
    {unpack(ARGV, 6, 5 + r)})
  if refused ~= 0 then return refused end
end
local members = {}
local undispatched = {}
local m_at = 6 + r
local m = tonumber(ARGV[m_at])
local a = m_at + 1 + m
local first_id = ARGV[a]
-- Each task's hash is written by one HSET of the shared fields, then its own in the slots after
-- them (one table for every task: a second HSET per task cost more than copying its own fields).
local fields = {unpack(ARGV, m_at + 1, m_at + m)}
for t = 1, count do
  local id, created, set, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  for i = 1, n do fields[m + i] = ARGV[a + 3 + i] end
  redis.call('HSET', KEYS[4 + t], unpack(fields, 1, m + n))
  local list = members[set]
  if not list then
    list = {}
    members[set] = list
  end
  list[#list + 1] = created
  list[#list + 1] = id
  undispatched[#undispatched + 1] = ARGV[1]
  undispatched[#undispatched + 1] = id
  a = a + 4 + n
end
for set, list in pairs(members) do
  local first = sets_first + (set - 1) * per_set
  -- Every index of the group but the last (the code package's stats index) is scored by
  -- created_at; the stats index by the time of the change, which for a new task is the same.
  for i = first, first + per_set - 1 do redis.call('ZADD', KEYS[i], unpack(list)) end
end
redis.call('ZADD', KEYS[1], unpack(undispatched))
count_created(KEYS[2], count, tonumber(ARGV[1]))
if retried then redis.call('HSET', KEYS[#KEYS], 'retry_task_id', first_id) end
return count
