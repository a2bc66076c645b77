--@keys due claimed schedule project_suspended active_count
-- Claims the run of a schedule due at an expected time: only the caller that still sees that
-- time claims it, so a run is queued once however many schedulers look at it.
-- The claim advances next_start (or completes the schedule) and records the run as claimed
-- until the task is queued, so a scheduler dying in between loses nothing.
-- A run of a suspended project is skipped: next_start moves on, nothing is claimed (returns 2).
-- KEYS: due set, claimed set, schedule hash, the project's suspension flag, the project's active
--       schedules count
-- ARGV: due member, expected due time, now, next_start ('' when no run is left), claimed member
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if redis.call('HGET', KEYS[3], 'status') ~= 'scheduled' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
local function completed()
  if tonumber(redis.call('DECR', KEYS[5])) < 0 then redis.call('SET', KEYS[5], 0) end
end
if redis.call('EXISTS', KEYS[4]) == 1 then
  if ARGV[4] == '' then
    redis.call('ZREM', KEYS[1], ARGV[1])
    redis.call('HDEL', KEYS[3], 'next_start')
    redis.call('HSET', KEYS[3], 'status', 'complete', 'updated_at', ARGV[3])
    completed()
  else
    redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
    redis.call('HSET', KEYS[3], 'next_start', ARGV[4], 'updated_at', ARGV[3])
  end
  return 2
end
redis.call('HINCRBY', KEYS[3], 'run_count', 1)
redis.call('HSET', KEYS[3], 'last_run_time', ARGV[3], 'updated_at', ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[3], 'next_start')
  redis.call('HSET', KEYS[3], 'status', 'complete')
  completed()
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
  redis.call('HSET', KEYS[3], 'next_start', ARGV[4])
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
return 1
