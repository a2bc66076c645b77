-- The first n available messages, without reserving them. ARGV: n.
-- Returns -1 for a missing queue, else a JSON list of [id, body, reserved_count, push headers or ''].
if redis.call('EXISTS', K_QUEUE) == 0 then return -1 end
maintain(now_ms())
local ids = redis.call('ZRANGE', K_READY, 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return '[]' end
local bodies = redis.call('HMGET', K_BODY, unpack(ids))
local counts = redis.call('HMGET', K_COUNT, unpack(ids))
local headers = redis.call('HMGET', K_HEADERS, unpack(ids))
local out = {}
for i, id in ipairs(ids) do out[i] = { id, bodies[i] or '', tonumber(counts[i] or '0'), headers[i] or '' } end
return cjson.encode(out)
