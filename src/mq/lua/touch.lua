#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/plain-allowed.lua
--@include includes/rid-expiry-suffix.lua
--@include includes/rid-parts.lua
--@include includes/check-live-reservation.lua
--@include includes/message-timeout.lua
-- Renews a live reservation under a new reservation id and counts it as a reservation.
-- ARGV: id, reservation id ('*' = the current one), timeout (s; 0 = the message's own timeout,
-- else the queue's), new reservation id, default timeout (s), '1' when plain messages may be
-- written (else a reserved plain message's expiry moves from its rid field to an expiry entry).
-- Returns { -1 } for a missing queue, { outcome } on refusal, { 0, reserved_count } when touched.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local now = now_ms()
local id = ARGV[1]
local outcome = check_live_reservation(id, ARGV[2], now)
if outcome ~= OK then return { outcome } end
local timeout = tonumber(ARGV[3])
if timeout == 0 then timeout = message_timeout(id, redis.call('HGET', K_QUEUE, 'timeout') or ARGV[5]) end
local _, expiry = rid_parts(redis.call('HGET', K_RID, id))
if expiry and not plain_allowed(ARGV[6]) then
  redis.call('ZADD', K_EXPIRY, 'NX', expiry, id)
  expiry = nil
end
redis.call('HSET', K_RID, id, expiry and ARGV[4] .. rid_expiry_suffix(expiry) or ARGV[4])
redis.call('ZADD', K_RESERVED, now + timeout * 1000, id)
return { OK, redis.call('HINCRBY', K_COUNT, id, 1) }
