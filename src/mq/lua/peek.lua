--@include includes/queue-keys.lua
--@include includes/maintain.lua
-- The first n available messages, without reserving them. ARGV: n, default timeout (s).
-- Returns -1 for a missing queue, else JSON { expired (messages dropped as expired), messages:
-- list of [id, body, reserved_count, push headers or '', reservation timeout (s)] }.
if redis.call('EXISTS', K_QUEUE) == 0 then return -1 end
local expired = maintain(now_ms())
local ids = redis.call('ZRANGE', K_READY, 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return cjson.encode({ expired = expired, messages = {} }) end
local bodies = redis.call('HMGET', K_BODY, unpack(ids))
local counts = redis.call('HMGET', K_COUNT, unpack(ids))
local headers = redis.call('HMGET', K_HEADERS, unpack(ids))
local timeouts = redis.call('HMGET', K_TIMEOUT, unpack(ids))
local default = tonumber(redis.call('HGET', K_QUEUE, 'timeout') or ARGV[2])
local out = {}
for i, id in ipairs(ids) do
  out[i] = { id, bodies[i] or '', tonumber(counts[i] or '0'), headers[i] or '', tonumber(timeouts[i] or default) }
end
return cjson.encode({ expired = expired, messages = out })
