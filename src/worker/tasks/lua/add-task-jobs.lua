--@keys marker meta id prioritized active events priority_counter
-- Adds the BullMQ jobs of tasks due now, all in one cluster's queue, writing what BullMQ's own
-- addPrioritizedJob writes for each (the job hash, its prioritized score from the queue's
-- priority counter, the added and waiting events, the marker), so that BullMQ Workers take them
-- as their own. BullMQ's addBulk runs that script once per job; this runs once per request,
-- which is most of the cost of queueing a task. A job whose id exists already is left as it
-- is (job ids are task ids: adding twice is adding once), with BullMQ's duplicated event.
-- test/redis/domain/task-jobs.test.ts compares every key it writes with BullMQ's addBulk, and
-- holds package.json to the exact BullMQ version (pinned) whose layout this copies.
-- ARGV: the queue's key prefix (a job's key is prefix .. id), timestamp ms, job name, then
--       per job: id (JSON-safe: task ids and fixed suffixes), BullMQ priority (>= 1), data (JSON)
-- Returns the number of jobs added.
local prefix, timestamp, name = ARGV[1], ARGV[2], ARGV[3]
local jobs = (#ARGV - 3) / 3

local max_events = redis.call('HGET', KEYS[2], 'opts.maxLenEvents')
if not max_events then
  max_events = 10000
  redis.call('HSET', KEYS[2], 'opts.maxLenEvents', max_events)
end
local meta = redis.call('HMGET', KEYS[2], 'paused', 'concurrency')
local held = meta[1] or (meta[2] and redis.call('LLEN', KEYS[5]) >= tonumber(meta[2]))

-- BullMQ counts every add in the id key, and every prioritized job in the priority counter.
redis.call('INCRBY', KEYS[3], jobs)
local counter = tonumber(redis.call('GET', KEYS[7]) or '0')
local scored = {}
for a = 4, #ARGV, 3 do
  local id, priority = ARGV[a], ARGV[a + 1]
  local key = prefix .. id
  if redis.call('EXISTS', key) == 1 then
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', max_events, '*', 'event', 'duplicated', 'jobId', id)
  else
    redis.call('HSET', key, 'name', name, 'data', ARGV[a + 2],
      'opts', '{"jobId":"' .. id .. '","priority":' .. priority .. ',"delay":0,"attempts":0}',
      'timestamp', timestamp, 'delay', 0, 'priority', priority)
    redis.call('XADD', KEYS[6], '*', 'event', 'added', 'jobId', id, 'name', name)
    counter = counter + 1
    scored[#scored + 1] = tonumber(priority) * 0x100000000 + counter % 0x100000000
    scored[#scored + 1] = id
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', max_events, '*', 'event', 'waiting', 'jobId', id)
  end
end
if #scored == 0 then return 0 end
redis.call('SET', KEYS[7], counter)
redis.call('ZADD', KEYS[4], unpack(scored))
if not held then redis.call('ZADD', KEYS[1], 0, '0') end
return #scored / 2
