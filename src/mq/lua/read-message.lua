--@include includes/queue-keys.lua
--@include includes/plain-expiration.lua
--@include includes/expiries.lua
--@include includes/message-timeout.lua
-- One message by id, whatever its state. ARGV: id, default timeout (s).
-- Returns { -1 } for a missing queue, { 1 } for a missing (or expired) message,
-- else { 0, body, reserved_count, push headers or '', reservation timeout (s) }.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local id = ARGV[1]
local expiry = expiries({ id }, plain_expiration())[1]
if not expiry or expiry <= now_ms() then return { NOT_FOUND } end
return { OK, redis.call('HGET', K_BODY, id) or '', tonumber(redis.call('HGET', K_COUNT, id) or '0'), redis.call('HGET', K_HEADERS, id) or '',
  message_timeout(id, redis.call('HGET', K_QUEUE, 'timeout') or ARGV[2]) }
