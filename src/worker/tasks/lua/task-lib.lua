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

-- Queued tasks count toward the project's queued_tasks and stored_bytes quotas: `payloads` is a
-- hash task id → payload bytes of each queued task, `total` the sum of its values (the tasks'
-- share of stored_bytes). A task is entered when it is created and leaves when its status
-- leaves queued. A release without an entry (a task an earlier release wrote) releases nothing;
-- an entry a release without this hash left behind is dropped by the task sweeper
-- (repair-queued-tasks.lua).

-- Enters `entries` ({id, bytes, ...}) unless the project would pass `most` queued tasks (-1;
-- counted as the larger of the hash's entries and the queued index, which earlier releases
-- keep too) or the bytes would pass `allowance` (-2). Returns 0 when entered.
local function reserve_queued(payloads, total, queued_index, most, allowance, entries)
  local count = math.max(redis.call('HLEN', payloads), redis.call('ZCARD', queued_index))
  if count + #entries / 2 > most then return -1 end
  local bytes = 0
  for i = 2, #entries, 2 do bytes = bytes + tonumber(entries[i]) end
  if bytes > 0 and tonumber(redis.call('GET', total) or '0') + bytes > allowance then return -2 end
  redis.call('HSET', payloads, unpack(entries))
  redis.call('INCRBY', total, bytes)
  return 0
end

-- Enters a task that comes back to the queue (a run its runner never started) without a check:
-- it had its room before.
local function reenter_queued(payloads, total, id, bytes)
  if redis.call('HSETNX', payloads, id, bytes) == 1 then redis.call('INCRBY', total, bytes) end
end

-- Takes task `id`'s entry out, if it has one, and its bytes off the total (never below 0).
local function release_queued(payloads, total, id)
  local bytes = redis.call('HGET', payloads, id)
  if not bytes then return end
  redis.call('HDEL', payloads, id)
  local left = tonumber(redis.call('GET', total) or '0') - tonumber(bytes)
  redis.call('SET', total, math.max(0, left))
end
