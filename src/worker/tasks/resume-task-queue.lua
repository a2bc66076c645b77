-- Resumes a code package's task queue: clears the paused flag and returns the ids of the
-- tasks set aside meanwhile, oldest first. They stay parked until the caller has queued
-- them again (TaskQueuePause.resume), so a failure in between loses none.
-- KEYS: paused flag, parked zset
redis.call('DEL', KEYS[1])
return redis.call('ZRANGE', KEYS[2], 0, -1)
