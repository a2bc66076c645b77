#!lua flags=allow-oom
--@keys schedule due active_count
-- Cancels a schedule that still has runs: no further run is claimed.
-- KEYS: schedule hash, due set, the project's active schedules count
-- ARGV: due member, now
-- Returns the status before: '' when there is no such schedule.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return '' end
if status ~= 'scheduled' then return status end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'updated_at', ARGV[2])
redis.call('HDEL', KEYS[1], 'next_start')
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(redis.call('DECR', KEYS[3])) < 0 then redis.call('SET', KEYS[3], 0) end
return status
