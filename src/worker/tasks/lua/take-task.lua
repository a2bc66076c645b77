--@include task-lib.lua
--@keys task code gate paused parked groups_suspension_payloads_total...
-- A runner takes a queued task (queued → preparing), unless every max_concurrency slot of
-- its code package is held. A slot is a member of the package's gate (task id scored by
-- its lease's expiry ms) that the holding runner renews with its heartbeat, so the slots
-- of a runner that died lapse on their own.
-- A task of a paused package, or of a suspended project, is set aside (parked) instead, for
-- resume (or the end of the suspension) to queue again.
-- KEYS: task hash, code (JSON), gate zset, its paused flag, its parked zset, then the task's
--       queued and preparing status groups, then the project's suspension flag, then its queued
--       payloads hash and their total (task-lib.lua's release_queued: a taken task is no longer queued)
-- ARGV: runner id, now ms, lease expiry ms
-- Returns {1, 'queued'} when taken, {-1, 'queued'} when no slot is free, {-2, 'queued'}
-- when parked, and
-- {0, current status} when the task is not queued ('' when missing).
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if current ~= 'queued' then return {0, current} end
local id = redis.call('HGET', KEYS[1], 'id')
local created = redis.call('HGET', KEYS[1], 'created_at')
if redis.call('EXISTS', KEYS[4]) == 1 or redis.call('EXISTS', KEYS[6 + 2 * GROUP]) == 1 then
  redis.call('ZADD', KEYS[5], created, id)
  return {-2, current}
end
local code = redis.call('GET', KEYS[2])
local limit = code and cjson.decode(code).max_concurrency
if type(limit) == 'number' and limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
  if redis.call('ZSCORE', KEYS[3], id) == false and redis.call('ZCARD', KEYS[3]) >= limit then
    return {-1, current}
  end
  redis.call('ZADD', KEYS[3], ARGV[3], id)
end
move_task(6, 6 + GROUP, id, created, ARGV[2])
release_queued(KEYS[7 + 2 * GROUP], KEYS[8 + 2 * GROUP], id)
redis.call('HSET', KEYS[1], 'status', 'preparing', 'updated_at', ARGV[2], 'runner', ARGV[1])
-- An image pull of an earlier take no longer shows (mark-task-pulling.lua).
redis.call('HDEL', KEYS[1], 'pulling_at')
return {1, current}
