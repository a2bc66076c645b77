-- The first n available messages, without reserving them. ARGV: n.
-- Returns { -1 } for a missing queue, else { 0, then per message: id, body, reserved_count, push headers or '' }.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
maintain(now_ms())
local out = { 0 }
for _, id in ipairs(redis.call('ZRANGE', K_READY, 0, tonumber(ARGV[1]) - 1)) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', K_BODY, id) or ''
  out[#out + 1] = tonumber(redis.call('HGET', K_COUNT, id) or '0')
  out[#out + 1] = redis.call('HGET', K_HEADERS, id) or ''
end
return out
