#!lua flags=allow-oom
--@include ../includes/queue-keys.lua
--@include ../includes/remove-messages.lua
--@include push-common.lua
--@keys queue ready delayed reserved expiry body count rid headers released dead timeout status
-- A subscriber acknowledges a delivery it answered with 202. The message is removed when that
-- ends its delivery and the deliverer is not holding it (the deliverer removes it otherwise).
-- ARGV: id, reservation id ('' = whichever the subscriber holds; version 1), subscriber name, mode (unicast/multicast), subscriber names (JSON list),
-- status lifetime once delivery is over (ms).
-- Returns { -1 } for a missing queue, { outcome } on refusal, { 0, 1, statuses JSON, body,
-- push headers } when delivery is over, { 0, 0 } otherwise.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local K_STATUS = KEYS[QUEUE_KEY_COUNT + 1]
local now = now_ms()
local id, rid, name = ARGV[1], ARGV[2], ARGV[3]
local raw = redis.call('HGET', K_STATUS, name)
if not raw then return { NOT_FOUND } end
local status = cjson.decode(raw)
if status.status == 'deleted' or status.status == 'error' then return { NOT_FOUND } end
if status.status ~= 'reserved' or (rid ~= '' and status.reservation_id ~= rid) or status.due_at <= now then return { TIMED_OUT } end
status.status = 'deleted'
status.due_at = nil
redis.call('HSET', K_STATUS, name, cjson.encode(status))
local statuses, all = push_statuses(K_STATUS, cjson.decode(ARGV[5]))
if not push_done(ARGV[4], statuses) then return { OK, 0 } end
local held = redis.call('ZSCORE', K_RESERVED, id)
if held and tonumber(held) > now then return { OK, 0 } end
local body = redis.call('HGET', K_BODY, id) or ''
local headers = redis.call('HGET', K_HEADERS, id) or ''
remove_messages({ id })
redis.call('PEXPIRE', K_STATUS, ARGV[6])
return { OK, 1, cjson.encode(all), body, headers }
