-- Shared by the task scripts (each includes it first).
-- A task's index keys come in status groups (GROUP keys): the list indexes of its status (all
-- tasks, by code, by cluster, by code and cluster), scored by created_at, then its code
-- package's stats index, scored by the time of the change. A list of every status merges the
-- seven groups' indexes. ANY (4 keys) are the all-status list indexes earlier versions also
-- wrote: nothing writes or reads them now, but expiry still removes a task from them, so that
-- tasks those versions wrote leave nothing behind.
local STATUSES = {'queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'}
local FINAL = {complete = true, error = true, cancelled = true, timeout = true}
local ANY = 4
local GROUP = 5

-- Adds `id` to the status group starting at KEYS[group_first]; the stats index gets `changed_at`.
local function index_task(group_first, id, created, changed_at)
  for i = group_first, group_first + GROUP - 2 do redis.call('ZADD', KEYS[i], created, id) end
  redis.call('ZADD', KEYS[group_first + GROUP - 1], changed_at, id)
end

-- Moves `id` from one status group to another.
local function move_task(from_first, to_first, id, created, changed_at)
  for i = from_first, from_first + GROUP - 1 do redis.call('ZREM', KEYS[i], id) end
  for i = to_first, to_first + GROUP - 2 do redis.call('ZADD', KEYS[i], created, id) end
  redis.call('ZADD', KEYS[to_first + GROUP - 1], changed_at, id)
end

-- Counts `n` new tasks in the project's usage figures: task_count, and hourly_task_count of
-- the hour starting at hourly_time (restarted at 0 when a new hour begins).
local HOUR_MS = 3600000
local function count_created(counters, n, now)
  local hour = now - (now % HOUR_MS)
  if tonumber(redis.call('HGET', counters, 'hourly_time') or '-1') ~= hour then
    redis.call('HSET', counters, 'hourly_time', hour, 'hourly_task_count', 0)
  end
  redis.call('HINCRBY', counters, 'task_count', n)
  redis.call('HINCRBY', counters, 'hourly_task_count', n)
end

-- Writes a new queued task from ARGV[a .. a + 2 + n] (id, created_at, n, n field/value
-- arguments), indexes it and marks it undispatched until its BullMQ job exists.
-- Returns the id and the ARGV position after it.
local function create_queued(hash, queued_first, undispatched, now, a)
  local id, created, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  redis.call('HSET', hash, unpack(ARGV, a + 3, a + 2 + n))
  index_task(queued_first, id, created, created)
  redis.call('ZADD', undispatched, now, id)
  return id, a + 3 + n
end
