--@keys paused parked
-- Resumes a code package's task queue: clears the paused flag and returns the ids of up to
-- `limit` tasks set aside meanwhile, oldest first. They stay parked until the caller has queued
-- them again (TaskQueuePause.resume), so a failure in between loses none; the caller calls
-- again for the next ones.
-- KEYS: paused flag, parked zset    ARGV: limit
redis.call('DEL', KEYS[1])
return redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
